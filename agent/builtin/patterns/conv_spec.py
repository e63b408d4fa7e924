"""What a traced convolution computes, read off its node: nn.Conv{1,2,3}d / nn.ConvTranspose{1,2,3}d modules
and F.conv{1,2,3}d / F.conv_transpose{1,2,3}d calls. Every convolution is described as a forward convolution
over three spatial axes (D, H, W; a 1-d or 2-d one has unit leading axes) of a *source*: the input itself, or
for a transposed convolution the input upsampled by its stride (zeros between the samples), read with stride 1,
padding dilation * (kernel - 1) - padding and the kernel flipped. That way one im2col + GEMM program covers
both, and the GEMM's weight matrix is (CO, CI / groups * KD * KH * KW) in either case."""
from __future__ import annotations

from dataclasses import dataclass

from kernelwright.agent.builtin.graphview import FLOAT_DTYPES, Node, OpGraph, ref

MODULES = {f"Conv{d}d": (d, False) for d in (1, 2, 3)} | {f"ConvTranspose{d}d": (d, True) for d in (1, 2, 3)}
FUNCTIONS = {f"conv{d}d": (d, False) for d in (1, 2, 3)} | {f"conv_transpose{d}d": (d, True) for d in (1, 2, 3)}


@dataclass
class ConvSpec:
    node: Node
    x: Node                   # the input read from GM
    weight: Node
    bias: Node | None
    rank: int                 # spatial axes of the task (1, 2 or 3)
    transposed: bool
    groups: int
    kernel: list[int]         # the three (D, H, W) values of each, unit/zero for the missing leading axes
    stride: list[int]         # of the task (the upsampling factor for a transposed convolution)
    padding: list[int]        # of the forward convolution over the source (may be negative: a crop)
    dilation: list[int]
    extra: list[int]          # output_padding: rows past the source's end the output still has (transposed)

    @property
    def step(self) -> list[int]:
        """The stride the im2col reads the source with (1 over an upsampled source)."""
        return [1, 1, 1] if self.transposed else self.stride


def constant(g: OpGraph, name: str) -> float | None:
    """The value of a one-element constant the forward made (torch.tensor(0.5)), which the tracer records:
    no parameter or input carries it to the kernel; or made inside the forward (torch.tensor(0.5, device=...))."""
    for n in g.trace["nodes"]:
        if n["name"] == name and n["kind"] == "get_attr":
            return n.get("value")
        if n["name"] == name and n["op"] == "tensor" and n["args"] and isinstance(n["args"][0], (int, float)) \
                and not isinstance(n["args"][0], bool):
            return float(n["args"][0])
    return None


def _three(v, rank: int, fill: int) -> list[int] | None:
    vals = [v] * rank if isinstance(v, int) and not isinstance(v, bool) else v
    if not isinstance(vals, (list, tuple)) or len(vals) != rank or not all(isinstance(i, int) for i in vals):
        return None
    return [fill] * (3 - rank) + list(vals)


def _leaf(g: OpGraph, name: str) -> Node | None:
    """A parameter (`module.weight`) or a graph input/attribute by fx name."""
    if name in g.params:
        p = g.params[name]
        return Node(name, "param", "get_attr", [], {}, p["shape"], p["dtype"])
    if name in g.by_name and g.node(name).kind in ("placeholder", "get_attr"):
        n = g.node(name)
        if n.kind == "get_attr" and n.target in g.params:
            p = g.params[n.target]
            return Node(n.target, "param", "get_attr", [], {}, p["shape"], p["dtype"])
        return n
    return None


def conv_spec(g: OpGraph, n: Node) -> ConvSpec | None:
    if n.op in MODULES:
        rank, transposed = MODULES[n.op]
        m = n.module
        if m.get("padding_mode", "zeros") != "zeros":
            return None
        weight = _leaf(g, f"{n.target}.weight")
        bias = _leaf(g, f"{n.target}.bias")
        x_ref = ref(n.args[0]) if n.args else None
        get = m.get
    elif n.op in FUNCTIONS:
        rank, transposed = FUNCTIONS[n.op]
        wname, bname = ref(n.arg(1, "weight")), ref(n.arg(2, "bias"))
        weight = _leaf(g, wname) if wname else None
        bias = _leaf(g, bname) if bname else None
        if n.arg(2, "bias") is not None and bias is None:
            return None
        x_ref = ref(n.arg(0, "input"))
        at = {"stride": 3, "padding": 4, "output_padding": 5, "groups": 6, "dilation": 7} if transposed else \
            {"stride": 3, "padding": 4, "dilation": 5, "groups": 6}
        defaults = {"stride": 1, "padding": 0, "output_padding": 0, "groups": 1, "dilation": 1}
        get = lambda k, d=None: n.arg(at[k], k, defaults[k]) if k in at else d  # noqa: E731
    else:
        return None
    x = g.node(x_ref) if x_ref else None
    if x is None or x.kind != "placeholder" or weight is None or x.shape is None or len(x.shape) != rank + 2:
        return None
    if x.dtype not in FLOAT_DTYPES or weight.dtype != x.dtype or (bias is not None and bias.dtype != x.dtype):
        return None
    groups = get("groups", 1)
    kernel = _three(list(weight.shape[2:]), rank, 1)
    stride, padding = _three(get("stride", 1), rank, 1), _three(get("padding", 0), rank, 0)
    dilation, extra = _three(get("dilation", 1), rank, 1), _three(get("output_padding", 0), rank, 0)
    if None in (kernel, stride, padding, dilation, extra) or not isinstance(groups, int) or groups < 1:
        return None
    if transposed:    # the forward convolution over the upsampled input: pad d * (k - 1) - p, kernel flipped
        padding = [d * (k - 1) - p for k, d, p in zip(kernel, dilation, padding)]
    else:
        extra = [0, 0, 0]
    return ConvSpec(n, x, weight, bias, rank, transposed, groups, kernel, stride, padding, dilation, extra)
