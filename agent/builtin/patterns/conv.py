"""Convolutions on the cube unit by im2col + GEMM: conv 1d/2d/3d and transposed conv 1d/2d/3d, any stride,
padding, dilation, output_padding and groups (depthwise and pointwise included), with or without bias, and
any elementwise epilogue (activations, scalars, a same-shape tensor, a per-channel parameter) run by the vector
unit on each block the cube leaves in the UB: MultiKernelBench's `fuse` chains of a convolution and
elementwise ops, with a GroupNorm/InstanceNorm among them (conv_norm). One MIX kernel in up to five phases
separated by barriers (programs written by conv_dsl, the data phases by conv_im2col):
  0. a row of zeros in a workspace (one block, the only vector instruction before the GEMM);
  1. (transposed only) the input upsampled by the stride into a workspace (zeros between samples), and the
     weight (CI, CO/g, k...) reordered to the GEMM's (CO, CI/g * k) layout;
  2. im2col: col[n] (CI*KD*KH*KW rows x OD*OH*OW columns) into a workspace by the copy engines alone (A.move:
     one 2-d copy per (image, channel, kd, kh, od) and kernel column, from the source or, with a stride along W,
     from the phase of it that kernel column reads; the padding copied from the zero row); a pointwise
     convolution skips it (col is the input);
  3. per image and group: y = W_g @ col_g on the cube, block by block into the UB, then bias and epilogue;
  4. (with a norm) the norm and the ops after it over whole (image, group) slices.
No vector instruction count grows with C_in * kernel volume: the reduction runs on the cube, the data movement
on the MTEs, and the vector unit works per output element. Depthwise convolutions also go through the cube
(K = kernel taps, M = channel multiplier): the cube wastes most of each fractal there, but the im2col copies
are the same data movement a direct kernel would do (every tap of every output read once)."""
from __future__ import annotations

from kernelwright.agent.builtin.chain import MODULES, Unsupported, is_elementwise
from kernelwright.agent.builtin.graphview import FLOAT_DTYPES, Node, OpGraph, ref
from kernelwright.agent.builtin import recipes
from kernelwright.agent.builtin.patterns import Emitted
from kernelwright.agent.builtin.patterns.conv_dsl import emit
from kernelwright.agent.builtin.patterns.conv_norm import BATCHNORMS, NORMS, batchnorm_ok, split
from kernelwright.agent.builtin.patterns.conv_spec import FUNCTIONS, MODULES as CONV_MODULES, constant, conv_spec

PASS = {"contiguous", "clone", "detach", "identity"}
KNOWN = set(CONV_MODULES) | set(FUNCTIONS) | PASS | recipes.KNOWN | set(MODULES) | NORMS | BATCHNORMS | {"tensor"}


def epilogue_extras(g: OpGraph, core: Node, after: list[Node], co: int) -> dict[str, str] | None:
    """The other tensor operands of the elementwise nodes after the convolution: leaf fx name -> "full"
    (shaped like the output), "chan" (one value per output channel, broadcast over the rest), "scalar" (a
    one-element tensor read from GM) or "const" (a constant the forward made, written into the program)."""
    done = {core.name} | {n.name for n in after}
    extras: dict[str, str] = {}
    rank = len(core.shape)
    for n in after:
        for v in list(n.args) + list(n.kwargs.values()):
            name = ref(v)
            if name is None or name in done:
                continue
            leaf = g.node(name)
            if constant(g, name) is not None:
                extras[name] = "const"
                continue
            if leaf.kind == "get_attr" and leaf.target in g.params:
                p = g.params[leaf.target]
                leaf = Node(leaf.name, "param", "get_attr", [], {}, p["shape"], p["dtype"], target=leaf.target)
            if leaf.kind not in ("placeholder", "get_attr") or leaf.shape is None or leaf.dtype not in FLOAT_DTYPES:
                return None
            shape = [1] * (rank - len(leaf.shape)) + list(leaf.shape)
            if leaf.shape == core.shape:
                extras[name] = "full"
            elif leaf.numel == 1:
                extras[name] = "scalar"
            elif leaf.numel == co and shape[1] == co:
                extras[name] = "chan"
            else:
                return None
    return extras


def _chain(g: OpGraph, core: Node) -> list[Node] | None:
    nodes = [n for n in g.compute if n.kind != "get_attr" and constant(g, n.name) is None
             and not (n.op == "getattr" and n.shape is None)]         # x.device for torch.tensor(..., device=)
    at = nodes.index(core)
    before, after = nodes[:at], nodes[at + 1:]
    if any(n.op not in PASS for n in before) or \
            not all(is_elementwise(g, n) or n.op in NORMS or batchnorm_ok(g, n) for n in after):
        return None
    return after


def match(g: OpGraph, name: str) -> Emitted | None:
    cores = [n for n in g.compute if n.op in CONV_MODULES or n.op in FUNCTIONS]
    out = g.single_output()
    if len(cores) != 1 or out is None or g.mutated or g.scalar_inputs:
        return None
    spec = conv_spec(g, cores[0])
    if spec is None or spec.node.shape is None:
        return None
    after = _chain(g, spec.node)
    if after is None or out.name != (after[-1].name if after else spec.node.name):
        return None
    if any(n.shape is not None and n.shape != spec.node.shape for n in after if n.op not in recipes.IDENTITY):
        return None
    parts = split(g, after)
    if parts is None:
        return None
    pre, norm = parts
    extras = epilogue_extras(g, spec.node, pre, spec.node.shape[1])
    if norm is not None:
        post = epilogue_extras(g, norm.node, norm.post, spec.node.shape[1])
        if post is None:          # (an op after the norm reading a value from before it is no leaf: refused)
            return None
        norm.post_extras = post
    if extras is None:
        return None
    try:
        return emit(g, spec, pre, extras, name, norm)
    except Unsupported:
        return None

