"""Row softmax and log-softmax over the last axis (the DSL's softmax example): rows split across
blocks, each row walked in column chunks three times — running max, running sum of exp(x - max),
then the normalised output — in fp32 for every input dtype."""
from __future__ import annotations

from kernelwright.agent.builtin.dslgen import decorator, doc, ident, kernel_name
from kernelwright.agent.builtin.graphview import FLOAT_DTYPES, OpGraph, ref
from kernelwright.agent.builtin.patterns import Emitted

KNOWN = {"softmax", "log_softmax", "Softmax", "LogSoftmax"}

TILING = '''@A.tiling
def tiling({x}, hw):
    cols = {x}.shape[-1]
    rows = {x}.numel // cols
    nb = max(1, min(hw.vector_cores, rows))
    # UB per chunk element: the input and output tiles (2 slots each) + w and acc (fp32)
    per_elem = 4 * {x}.dtype.size + 4 + 4
    chunk = A.align_down((hw.ub_bytes - 16384) // per_elem, 64)       # 16 KiB left for the reduce scratch
    chunk = min(chunk, A.align_up(cols, 64))
    return A.Tiling(block_dim=nb, rows=rows, cols=cols, chunk=chunk, lanes=min(chunk, cols))
'''

KERNEL = '''def {kname}({x}, {y}, t):
    xin = A.ub({x}.dtype, t.chunk)
    yout = A.ub({y}.dtype, t.chunk)
    w = A.ub(A.f32, t.chunk)
    acc = A.ub(A.f32, t.chunk)
    r0, r1 = A.block_span(t.rows)
    for r in A.range(r0, r1):
        base = r * t.cols
        A.Duplicate(acc, -A.inf, t.chunk)
        for c, n in A.tiles(0, t.cols, t.chunk, stages=2):
            A.load(xin, {x}[base + c:], n)
            A.Cast(w, xin, "auto", n)
            A.Max(acc, acc, w, n)
        m = A.reduce_max(acc, t.lanes)
        A.Duplicate(acc, 0.0, t.chunk)
        for c, n in A.tiles(0, t.cols, t.chunk, stages=2):
            A.load(xin, {x}[base + c:], n)
            A.Cast(w, xin, "auto", n)
            A.Adds(w, w, -m, n)
            A.Exp(w, w, n)
            A.Add(acc, acc, w, n)
        s = A.reduce_sum(acc, t.lanes)
{finish}
        for c, n in A.tiles(0, t.cols, t.chunk, stages=2):
            A.load(xin, {x}[base + c:], n)
            A.Cast(w, xin, "auto", n)
{normalise}
            A.Cast(yout, w, "auto", n)
            A.store({y}[base + c:], yout, n)
'''
SOFTMAX = ("        inv = 1.0 / s",
           "            A.Adds(w, w, -m, n)\n            A.Exp(w, w, n)\n            A.Muls(w, w, inv, n)")
LOG_SOFTMAX = ("        ls = A.ln(s)\n        shift = m + ls",
               "            A.Adds(w, w, -shift, n)")


def match(g: OpGraph, name: str) -> Emitted | None:
    out = g.single_output()
    if out is None or len(g.compute) != 1 or len(g.tensor_inputs) != 1 or g.scalar_inputs:
        return None
    node, x = g.compute[0], g.tensor_inputs[0]
    kind = {"Softmax": "softmax", "LogSoftmax": "log_softmax"}.get(node.op, node.op)
    if kind not in ("softmax", "log_softmax") or ref(node.args[0]) != x.name or x.dtype not in FLOAT_DTYPES:
        return None
    dim = node.arg(1, "dim")
    if dim is None or dim not in (-1, len(x.shape) - 1):
        return None
    taken: set[str] = set()
    xn, yn = ident(x.name, taken), ident("y", taken)
    finish, normalise = SOFTMAX if kind == "softmax" else LOG_SOFTMAX
    source = (doc(f"{name}: {kind} over the last axis, row by row in column chunks, fp32 math (written by the "
                  "builtin writer).") + "\n\n" + TILING.format(x=xn) + "\n\n" + decorator([xn], {yn: xn}) + "\n" +
              KERNEL.format(kname=kernel_name(name), x=xn, y=yn, finish=finish, normalise=normalise))
    return Emitted("softmax", f"{kind} over the last axis of a {x.shape} tensor", source)
