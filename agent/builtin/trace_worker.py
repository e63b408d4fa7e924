"""Trace task references with torch.fx (run as a subprocess: `python -m kernelwright.agent.builtin.trace_worker`).

stdin: a JSON list of task dicts; stdout: a JSON list of traces, one per task. A trace lists the
forward's tensor inputs, the init values, the model's parameters, and every graph node with its
normalised op name, arguments (node references as {"node": name}), module attributes, output shape
and dtype (shape propagation under FakeTensorMode: no data is made). A task that cannot be traced
gives {"ok": false, "error": ...}."""
from __future__ import annotations

import json
import operator
import os
import sys
from typing import Any

import torch
import torch.fx
from torch.fx.passes.shape_prop import ShapeProp

from kernelwright.tools.tasks import shim
from kernelwright.tools.tasks.worker import TaskRunner

OPERATORS = {operator.add: "add", operator.sub: "sub", operator.mul: "mul", operator.truediv: "div",
             operator.neg: "neg", operator.pow: "pow", operator.getitem: "getitem", operator.floordiv: "floordiv",
             operator.abs: "abs", operator.gt: "gt", operator.lt: "lt", operator.ge: "ge", operator.le: "le",
             operator.eq: "eq", operator.matmul: "matmul", operator.and_: "logical_and", operator.or_: "logical_or",
             operator.xor: "logical_xor", operator.invert: "logical_not", operator.setitem: "setitem"}
ALIASES = {"truediv": "div", "true_divide": "div", "multiply": "mul", "subtract": "sub", "absolute": "abs",
           "clip": "clamp", "negative": "neg", "special_erf": "erf", "rsub": "rsub", "divide": "div",
           "bitwise_and": "logical_and", "bitwise_or": "logical_or", "bitwise_not": "logical_not"}


def _plain(v: Any) -> Any:
    if isinstance(v, torch.fx.Node):
        return {"node": v.name}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, torch.dtype):
        return {"dtype": str(v).replace("torch.", "")}
    if isinstance(v, (bool, int, float, str)) or v is None:
        return v
    if isinstance(v, torch.Size):
        return list(v)
    if isinstance(v, slice):
        return {"slice": [_plain(v.start), _plain(v.stop), _plain(v.step)]}
    return {"repr": repr(v)[:80]}


def _raw_name(node: torch.fx.Node) -> str:
    return str(node.target) if node.op == "call_method" else getattr(node.target, "__name__", "")


def _op_name(node: torch.fx.Node, modules: dict[str, torch.nn.Module]) -> str:
    if node.op == "call_function":
        name = OPERATORS.get(node.target) or getattr(node.target, "__name__", str(node.target))
    elif node.op == "call_method":
        name = str(node.target)
    elif node.op == "call_module":
        name = type(modules[node.target]).__name__
    else:
        return node.op
    name = name.rstrip("_") if name.endswith("_") and not name.startswith("_") else name   # relu_ -> relu
    return ALIASES.get(name, name)


def _module_attrs(m: torch.nn.Module) -> dict[str, Any]:
    return {k: _plain(v) for k, v in vars(m).items()
            if not k.startswith("_") and k != "training" and isinstance(v, (bool, int, float, str, tuple, list, type(None)))}


def _meta(node: torch.fx.Node) -> dict[str, Any]:
    tm = node.meta.get("tensor_meta")
    if tm is None or not hasattr(tm, "shape"):
        return {}
    return {"shape": list(tm.shape), "dtype": str(tm.dtype).replace("torch.", "")}


def _setitem(self: torch.fx.Proxy, key: Any, value: Any) -> Any:
    """x[idx] = value while tracing: an operator.setitem node (fx proxies have no item assignment)."""
    return self.tracer.create_proxy("call_function", operator.setitem, (self, key, value), {})


def _symbolic_trace(model: torch.nn.Module) -> torch.fx.GraphModule:
    """fx's trace; when it fails, once more with buffers as graph nodes (`self.mask[:L, :L]` with L = x.size(1)
    slices a buffer by a traced size: as a plain tensor the buffer cannot take a Proxy index)."""
    try:
        return torch.fx.symbolic_trace(model)
    except TypeError:
        tracer = torch.fx.Tracer()
        tracer.proxy_buffer_attributes = True
        return torch.fx.GraphModule(model, tracer.trace(model))


def trace_one(task: dict[str, Any]) -> dict[str, Any]:
    from torch._subclasses.fake_tensor import FakeTensorMode
    runner = TaskRunner(task)
    case = (task.get("cases") or [{"id": "default", "index": 0, "params": {}}])[0]
    fake = FakeTensorMode(allow_non_fake_inputs=True)
    with fake:
        args, init = runner.make(case, {})
        model = runner._model(case, init)
    if not hasattr(torch.fx.Proxy, "__setitem__"):
        torch.fx.Proxy.__setitem__ = _setitem  # type: ignore[attr-defined]
    gm = _symbolic_trace(model)
    modules = dict(gm.named_modules())
    try:                     # numbers among the forward arguments (A * s) flow through as they are
        ShapeProp(gm, fake_mode=fake).propagate(*args)
    except Exception:  # noqa: BLE001 - a graph fake tensors cannot run keeps its nodes, without shapes
        pass
    names = runner.forward_params
    out: dict[str, Any] = {"ok": True, "task": task["name"], "inputs": [], "init": [], "params": [], "nodes": []}
    for i, a in enumerate(args):
        name = names[i] if i < len(names) else f"arg{i}"
        entry = {"name": name, "shape": list(a.shape), "dtype": str(a.dtype).replace("torch.", "")} \
            if isinstance(a, torch.Tensor) else {"name": name, "value": _plain(a)}
        out["inputs"].append(entry)
    for i, v in enumerate(init):
        name = runner.init_params[i] if i < len(runner.init_params) else f"init{i}"
        out["init"].append({"name": name, "value": _plain(v) if not isinstance(v, torch.Tensor) else {"repr": "tensor"}})
    for n, p in list(model.named_parameters()) + list(model.named_buffers()):
        out["params"].append({"name": n, "shape": list(p.shape), "dtype": str(p.dtype).replace("torch.", "")})
    stored = {p["name"] for p in out["params"]}
    for node in gm.graph.nodes:
        entry = {"name": node.name, "op": _op_name(node, modules), "kind": node.op, "args": _plain(list(node.args)),
                 "kwargs": _plain(dict(node.kwargs)), **_meta(node)}
        if node.target is operator.setitem and isinstance(node.args[0], torch.fx.Node):
            entry.update(_meta(node.args[0]), inplace=True)     # x[idx] = v overwrites x (and returns None)
        if node.op in ("call_method", "call_function") and _raw_name(node).endswith("_") \
                and not _raw_name(node).startswith("_") and node.target not in OPERATORS:   # a & b is operator.and_
            entry["inplace"] = True       # x.mul_(...): later uses of x read this node's value
        if node.op == "call_module":
            entry["module"] = _module_attrs(modules[node.target])
            entry["target"] = str(node.target)
        elif node.op in ("get_attr", "placeholder"):
            entry["target"] = str(node.target)
        if node.op == "get_attr":          # a constant the forward made (torch.tensor(0.5)): no parameter carries it
            const = getattr(gm, str(node.target), None)
            if type(const) is torch.Tensor and const.numel() == 1 and const.dtype.is_floating_point \
                    and str(node.target) not in stored:
                entry["value"] = float(const.item())
        out["nodes"].append(entry)
    return out


def main() -> None:
    channel = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)                  # the tasks' prints must not corrupt the answer
    shim.install()
    tasks = json.loads(sys.stdin.read())
    results = []
    with shim.DeviceToCpu():
        for task in tasks:
            try:
                results.append(trace_one(task))
            except Exception as e:  # noqa: BLE001 - a task fx cannot follow is an answer, not a crash
                results.append({"ok": False, "task": task.get("name"), "error": f"{type(e).__name__}: {str(e)[:600]}"})
    channel.write(json.dumps(results))
    channel.flush()


if __name__ == "__main__":
    main()
