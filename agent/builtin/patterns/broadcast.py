"""Broadcasting binary ops and dtype casts, emitted from the DSL's broadcast/ and cast/ examples: a
bias added along one axis (x + b.view(1, -1, 1, 1), x + b over the last axis), a product of two
broadcasting tensors, and x.half() / x.float() / x.to(torch.bfloat16)."""
from __future__ import annotations

from kernelwright.agent.builtin.examples import instantiate
from kernelwright.agent.builtin.graphview import FLOAT_DTYPES, Node, OpGraph, ref
from kernelwright.agent.builtin.patterns import Emitted
from kernelwright.agent.builtin.patterns.common import applied_to, one_float_input, returns, work

CASTS = {"float16": ("cast_to_half", ("float32", "bfloat16")), "float32": ("cast_to_float", ("float16", "bfloat16")),
         "bfloat16": ("cast_to_bf16", ("float32", "float16"))}
KNOWN = {"add", "mul", "view", "reshape", "unsqueeze", "half", "float", "bfloat16", "to"}


def _source(g: OpGraph, v) -> Node | None:
    """The input or parameter a value comes from through reshapes (None for anything computed)."""
    name = ref(v)
    while name is not None:
        n = g.node(name)
        if n.kind in ("placeholder", "get_attr"):
            return n
        if n.op not in ("view", "reshape", "unsqueeze"):
            return None
        name = ref(n.args[0])
    return None


def _axis(x: list[int], b: list[int]) -> int | None:
    """The one axis of x a broadcast operand b (right-aligned) varies along."""
    pad = [1] * (len(x) - len(b)) + list(b)
    varying = [i for i, (p, q) in enumerate(zip(pad, x)) if p != 1]
    if len(pad) != len(x) or len(varying) != 1 or pad[varying[0]] != x[varying[0]]:
        return None
    return varying[0]


def _binary(g: OpGraph, name: str) -> Emitted | None:
    nodes = work(g)
    if g.mutated or not nodes or nodes[-1].op not in ("add", "mul") or not returns(g, nodes[-1]):
        return None
    top = nodes[-1]
    if any(n.op not in ("view", "reshape", "unsqueeze") for n in nodes[:-1]) or len(top.args) != 2:
        return None
    a, b = (_source(g, v) for v in top.args)
    shapes = [g.node(ref(v)).shape for v in top.args] if all(ref(v) for v in top.args) else []
    if a is None or b is None or len(shapes) != 2 or any(s.dtype not in FLOAT_DTYPES for s in (a, b)):
        return None
    out = top.shape
    if top.op == "add":
        for big, small, shape in ((a, b, shapes[1]), (b, a, shapes[0])):
            axis = _axis(out, shape) if big.shape == out and small.shape is not None else None
            if axis is not None and small.numel == out[axis]:
                return Emitted("broadcast", f"{out} plus a bias along axis {axis}",
                               instantiate("broadcast/add_bias_channel.dsl.py", {"axis": axis}, name))
        return None
    if shapes[0] != shapes[1] and a.kind == "placeholder" and b.kind == "placeholder" and not any(n.op != "mul" for n in nodes):
        return Emitted("broadcast", f"{shapes[0]} times {shapes[1]} with broadcasting",
                       instantiate("broadcast/mul_broadcast.dsl.py", {}, name))
    return None


def _cast(g: OpGraph, name: str) -> Emitted | None:
    x = one_float_input(g)
    nodes = work(g)
    if x is None or len(nodes) != 1 or not applied_to(nodes[0], x) or not returns(g, nodes[0]):
        return None
    n = nodes[0]
    target = {"half": "float16", "float": "float32", "bfloat16": "bfloat16"}.get(n.op)
    if n.op == "to":
        spec = n.arg(1, "dtype")
        target = spec.get("dtype") if isinstance(spec, dict) else None
    program, sources = CASTS.get(target, (None, ()))
    if program is None or x.dtype not in sources:
        return None
    return Emitted("cast", f"{x.dtype} to {target}", instantiate(f"cast/{program}.dsl.py", {}, name))


def match(g: OpGraph, name: str) -> Emitted | None:
    return _binary(g, name) or _cast(g, name)
