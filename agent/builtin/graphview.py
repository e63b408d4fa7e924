"""A typed view of a torch.fx trace (agent.builtin.trace) for the recognisers: nodes by name,
arguments by position or keyword, users, shapes."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

FLOAT_DTYPES = ("float32", "float16", "bfloat16")


@dataclass
class Node:
    name: str
    op: str                          # normalised op name (relu, add, softmax, LayerNorm, ...)
    kind: str                        # placeholder | call_function | call_method | call_module | get_attr | output
    args: list[Any]
    kwargs: dict[str, Any]
    shape: list[int] | None = None
    dtype: str | None = None
    module: dict[str, Any] = field(default_factory=dict)
    target: str | None = None
    inplace: bool = False            # x.mul_(...): it overwrites its first argument

    def arg(self, i: int, name: str, default: Any = None) -> Any:
        """Argument `name`, passed by keyword or at position i (for call_method, position 0 is self)."""
        if name in self.kwargs:
            return self.kwargs[name]
        if i < len(self.args):
            return self.args[i]
        return self.module.get(name, default)

    @property
    def numel(self) -> int:
        return math.prod(self.shape) if self.shape is not None else -1


def ref(v: Any) -> str | None:
    """The node name an argument refers to (None for a constant)."""
    return v["node"] if isinstance(v, dict) and "node" in v else None


class OpGraph:
    def __init__(self, trace: dict[str, Any]):
        self.trace = trace
        self.nodes = [Node(n["name"], n["op"], n["kind"], n["args"], n["kwargs"], n.get("shape"), n.get("dtype"),
                           n.get("module") or {}, n.get("target"), bool(n.get("inplace"))) for n in trace["nodes"]]
        self.by_name = {n.name: n for n in self.nodes}
        self.placeholders = [n for n in self.nodes if n.kind == "placeholder"]
        out = next(n for n in self.nodes if n.kind == "output")
        result = out.args[0]
        self.returns_tuple = isinstance(result, list)
        self.outputs = [ref(v) for v in (result if isinstance(result, list) else [result])]
        self.compute = [n for n in self.nodes if n.kind in ("call_function", "call_method", "call_module", "get_attr")]
        self.params = {p["name"]: p for p in trace.get("params", [])}
        self.mutated = self.functional()

    def functional(self) -> dict[str, str]:
        """Rewrite in-place ops as values: every later read of a tensor an in-place op overwrote reads that
        op's node instead (fx records the reads of the original name). Returns {input: its final node}
        for the inputs the graph overwrites."""
        root: dict[str, str] = {}          # node name -> the tensor (placeholder) it is a version of
        latest: dict[str, str] = {}        # tensor -> its newest version

        def fix(v: Any) -> Any:
            if isinstance(v, list):
                return [fix(x) for x in v]
            name = ref(v)
            if name is None:
                return v
            return {"node": latest.get(root.get(name, name), name)}
        for n in self.nodes:
            n.args, n.kwargs = fix(n.args), {k: fix(x) for k, x in n.kwargs.items()}
            if n.inplace and ref(n.args[0]):
                base = root.get(ref(n.args[0]), ref(n.args[0]))
                root[n.name], latest[base] = base, n.name
        out = next(n for n in self.nodes if n.kind == "output")
        result = out.args[0]
        self.outputs = [ref(v) for v in (result if isinstance(result, list) else [result])]
        return {base: last for base, last in latest.items() if self.by_name[base].kind == "placeholder"}

    def node(self, name: str) -> Node:
        return self.by_name[name]

    @property
    def tensor_inputs(self) -> list[Node]:
        return [n for n in self.placeholders if n.shape is not None]

    @property
    def scalar_inputs(self) -> list[Node]:
        return [n for n in self.placeholders if n.shape is None]

    def users(self, name: str) -> list[Node]:
        def mentions(v: Any) -> bool:
            if isinstance(v, list):
                return any(mentions(x) for x in v)
            if isinstance(v, dict):
                return ref(v) == name or any(mentions(x) for x in v.values())
            return False
        return [n for n in self.nodes if n.kind != "placeholder" and (mentions(n.args) or mentions(n.kwargs))]

    def ops(self) -> list[str]:
        return [n.op for n in self.compute]

    def single_output(self) -> Node | None:
        if self.returns_tuple or len(self.outputs) != 1 or self.outputs[0] is None:
            return None
        return self.node(self.outputs[0])
