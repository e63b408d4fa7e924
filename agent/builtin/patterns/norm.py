"""Normalisation layers: LayerNorm, RMSNorm (nn.RMSNorm or the usual formula with a weight),
GroupNorm, InstanceNorm and BatchNorm (inference), emitted from the DSL's norm/ examples."""
from __future__ import annotations

from kernelwright.agent.builtin.examples import instantiate
from kernelwright.agent.builtin.graphview import Node, OpGraph, ref
from kernelwright.agent.builtin.patterns import Emitted
from kernelwright.agent.builtin.patterns.common import applied_to, one_float_input, returns, work

KNOWN = {"LayerNorm", "layer_norm", "RMSNorm", "rms_norm", "GroupNorm", "InstanceNorm1d", "InstanceNorm2d",
         "InstanceNorm3d", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "rsqrt", "pow", "mean", "add", "mul"}


def _module(g: OpGraph, x: Node, name: str) -> Emitted | None:
    nodes = work(g)
    if len(nodes) != 1 or not applied_to(nodes[0], x) or not returns(g, nodes[0]):
        return None
    n, m = nodes[0], nodes[0].module
    eps = float(m.get("eps") if m.get("eps") is not None else 1e-5)
    if n.op == "LayerNorm" and m.get("elementwise_affine") and m.get("bias", True) is not False:
        return Emitted("norm", f"LayerNorm over the trailing {m.get('normalized_shape')} of {x.shape}",
                       instantiate("norm/layer_norm.dsl.py", {"eps": eps}, name))
    if n.op == "RMSNorm" and m.get("elementwise_affine"):
        eps = float(m["eps"]) if m.get("eps") is not None else 1.1920928955078125e-07   # finfo(float32).eps
        return Emitted("norm", f"RMSNorm over the last axis of {x.shape}",
                       instantiate("norm/rms_norm.dsl.py", {"eps": eps}, name))
    if n.op == "GroupNorm" and m.get("affine"):
        return Emitted("norm", f"GroupNorm with {m['num_groups']} groups on {x.shape}",
                       instantiate("norm/group_norm.dsl.py", {"num_groups": int(m["num_groups"]), "eps": eps},
                                   name))
    if n.op.startswith("InstanceNorm") and not m.get("affine") and not m.get("track_running_stats"):
        return Emitted("norm", f"InstanceNorm (no affine) on {x.shape}",
                       instantiate("norm/instance_norm.dsl.py", {"eps": eps}, name))
    if n.op.startswith("BatchNorm") and m.get("affine") and m.get("track_running_stats") and len(x.shape) >= 2:
        return Emitted("norm", f"BatchNorm (inference, running statistics) on {x.shape}",
                       instantiate("norm/batch_norm.dsl.py", {"eps": eps}, name))
    return None


def _rms_formula(g: OpGraph, x: Node, name: str) -> Emitted | None:
    """x * rsqrt(mean(x^2, -1, keepdim) + eps) * weight (the weight a parameter of the last axis)."""
    ops = [n.op for n in work(g)]
    if ops != ["pow", "mean", "add", "rsqrt", "mul", "mul"]:
        return None
    p, mean, add, rs, m1, m2 = work(g)
    weights = [n for n in g.compute if n.kind == "get_attr"]
    ok = (applied_to(p, x) and p.args[1] == 2 and ref(mean.args[0]) == p.name
          and mean.arg(1, "dim") in (-1, len(x.shape) - 1, [-1]) and mean.arg(2, "keepdim", False)
          and ref(add.args[0]) == mean.name and isinstance(add.args[1], float) and ref(rs.args[0]) == add.name
          and {ref(a) for a in m1.args} == {x.name, rs.name} and len(weights) == 1
          and {ref(a) for a in m2.args} == {m1.name, weights[0].name} and returns(g, m2))
    if not ok:
        return None
    return Emitted("norm", f"RMSNorm with a weight over the last axis of {x.shape}",
                   instantiate("norm/rms_norm.dsl.py", {"eps": float(add.args[1])}, name))


def match(g: OpGraph, name: str) -> Emitted | None:
    x = one_float_input(g)
    if x is None:
        return None
    return _module(g, x, name) or _rms_formula(g, x, name)
