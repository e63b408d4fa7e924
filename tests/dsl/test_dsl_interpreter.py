"""The interpreter's machine model: device numerics (fp16 rounding per instruction, the ReduceSum
order), the UB ledger with hidden scratch, the block split, workspaces and atomics, plain DataCopy
for whole blocks — each checked against the emulation where the emulation can tell."""
import numpy as np

from kernelwright.tools.dsl.interp.run import interpret
from kernelwright.tools.dsl.lower import lower
from kernelwright.tools.dsl.parse_program import parse_program
from kernelwright.tools.toolchain import Case

HALF_SUM = '''"""Row sums in fp16 (no fp32 accumulation: the device's rounding shows)."""
import adsl as A


@A.tiling
def tiling(x, hw):
    cols = x.shape[-1]
    rows = x.numel // cols
    nb = max(1, min(hw.vector_cores, rows))
    return A.Tiling(block_dim=nb, rows=rows, cols=cols)


@A.shapes
def shapes(x):
    return {"y": x.shape[:-1]}


@A.kernel(inputs={"x": (A.f16,)}, outputs={"y": (A.f16,)})
def half_sum(x, y, t):
    xin = A.ub(A.f16, t.cols)
    res = A.ub(A.f16, 16)
    r0, r1 = A.block_span(t.rows)
    for r in A.range(r0, r1):
        A.load(xin, x[r * t.cols:], t.cols)
        A.Muls(xin, xin, 1.5, t.cols)
        A.ReduceSum(res, xin, t.cols)
        A.store(y[r:], res, 1)
'''


def test_fp16_numerics_match_the_emulation_bit_for_bit(sim):
    program = parse_program(HALF_SUM, "half_sum.dsl.py")
    x = (np.random.default_rng(3).standard_normal((5, 3001)) * 8).astype(np.float16)
    res = interpret(program, {"x": x})
    assert res.ok, [d.render() for d in res.diagnostics]
    r = sim.run(sim.build(lower(program)), Case(inputs={"x": x}))
    assert r.status == "ok"
    assert np.array_equal(r.outputs["y"].view(np.uint16), res.outputs["y"].view(np.uint16))
    exact = (x.astype(np.float64) * 1.5).sum(-1)
    assert not np.array_equal(res.outputs["y"], exact.astype(np.float16))    # fp16 rounding is modelled


def test_the_ub_ledger_counts_hidden_scratch_and_suggests_a_fit():
    program = parse_program(HALF_SUM, "half_sum.dsl.py")
    res = interpret(program, {"x": np.zeros((2, 100000), np.float16)})
    (d,) = res.errors()
    assert d.rule == "ub.capacity" and d.line == 20          # the largest tile
    assert "xin 200000" in d.message and "kwWork" in d.message and "total" in d.message
    assert "tile length of at most" in d.hint


COPY = '''"""Copy with a plain DataCopy (a literal length of whole 32-byte blocks), an atomic add and a workspace."""
import adsl as A


@A.tiling
def tiling(x, hw):
    return A.Tiling(block_dim=4, n=x.numel)


@A.kernel(inputs={"x": (A.f32,)}, outputs={"y": "x"})
def copy_add(x, y, t):
    ws = A.workspace(A.f32, 64)
    a = A.ub(A.f32, 64)
    b = A.ub(A.f32, 64)
    c = A.ub(A.f32, 64)
    if A.block_idx() == 0:
        A.load(a, x, 64)
        A.store(y, a, 64)
    A.sync_all()
    A.load(b, x, 64)
    A.store(y, b, 64, atomic="add")
    A.sync_all()
    if A.block_idx() == 1:
        A.load(c, ws, 64)
'''


def test_plain_datacopy_atomics_and_workspace_reads():
    program = parse_program(COPY, "copy_add.dsl.py")
    kernel = lower(program).files["op_kernel/copy_add.cpp"]
    assert "DataCopy(a, xGm, 64);" in kernel and "SetAtomicAdd<float>();" in kernel
    x = np.arange(64, dtype=np.float32)
    res = interpret(program, {"x": x})
    (d,) = res.errors()
    assert d.rule == "gm.uninit" and d.line == 24 and d.block == 1        # nobody wrote the workspace
    ok = parse_program(COPY.replace("    if A.block_idx() == 1:\n        A.load(c, ws, 64)\n", ""), "copy_add.dsl.py")
    res = interpret(ok, {"x": x})
    assert res.ok and np.array_equal(res.outputs["y"], 5 * x)              # x once + four atomic adds


def test_block_span_gives_every_element_to_exactly_one_block():
    from kernelwright.tools.dsl.interp.values import KernelExprEval
    program = parse_program(HALF_SUM, "half_sum.dsl.py")
    for total, align, blocks in ((1000, 8, 48), (7, 16, 3), (48 * 16 + 5, 16, 48), (0, 1, 4)):
        spans = [KernelExprEval(program, {}, lambda g: None, b, blocks).block_span(total, align, 1)
                 for b in range(blocks)]
        covered = [i for lo, hi in spans for i in range(lo, hi)]
        assert covered == list(range(total))
        assert all(lo % align == 0 for lo, hi in spans if hi > lo)
