"""The direct AscendC route's starting point: a kernel project for the task's operator with everything but
the computation — the OpDef (inputs, module parameters, attributes, outputs with their dtypes), a host
TilingFunc that passes every input dimension and attribute to the kernel, and a kernel class that binds
every GM tensor and does nothing yet. It is made by lowering a signature-only DSL program generated from the
traced reference, so the project has exactly the shape the referee binds for DSL kernels (names, order,
attributes), and the model writes only what a kernel engineer would: the kernel body and, if it needs
other fields, the tiling."""
from __future__ import annotations

import keyword
import re
from typing import Any

from kernelwright.agent import dslkit
from kernelwright.tools.project import KernelProject
from kernelwright.tools.task import Task

DSL_DTYPES = {"float32": "A.f32", "float16": "A.f16", "bfloat16": "A.bf16", "int32": "A.i32", "int16": "A.i16",
              "int8": "A.i8", "uint8": "A.u8", "int64": "A.i64", "bool": "A.bool"}


def dsl_name(name: str) -> str:
    """A reference name as a DSL (and C++) identifier: `conv1.weight` -> `conv1_weight`; the DSL alias `A`
    and keywords get a trailing underscore (the binding matches it to the reference's name)."""
    out = re.sub(r"\W", "_", name)
    out = f"v_{out}" if out[:1].isdigit() else out
    return f"{out}_" if out == "A" or keyword.iskeyword(out) or out in ("hw", "t") else out


def _outputs(trace: dict[str, Any]) -> list[dict[str, Any]]:
    """The reference's output tensors (shape, dtype), from the traced graph's output node."""
    nodes = trace.get("nodes") or []
    out = next((n for n in nodes if n.get("op") == "output"), None)
    if out is None:
        return []
    by_name = {n["name"]: n for n in nodes}
    args = out.get("args") or []
    refs = args[0] if len(args) == 1 and isinstance(args[0], list) else args
    found = [by_name.get(a.get("node")) for a in refs if isinstance(a, dict) and "node" in a]
    found = [n for n in found if n and n.get("shape") is not None]
    return found or ([out] if out.get("shape") is not None else [])


def number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def signature(trace: dict[str, Any]) -> dict[str, Any]:
    """Inputs (forward tensors, then module parameters), numeric attributes and outputs, as the skeleton
    declares them: names, dtypes and the traced shapes."""
    tensors = [(dsl_name(i["name"]), i) for i in trace.get("inputs", []) if i.get("shape") is not None]
    tensors += [(dsl_name(p["name"]), p) for p in trace.get("params", [])]
    attrs = [(dsl_name(a["name"]), a["value"]) for a in trace.get("init", []) if number(a.get("value"))]
    attrs += [(dsl_name(i["name"]), i["value"]) for i in trace.get("inputs", [])
              if i.get("shape") is None and number(i.get("value"))]
    outs = trace.get("outputs") or _outputs(trace)
    names = ["y"] if len(outs) == 1 else [f"y{i}" for i in range(len(outs))]
    taken = {n for n, _ in tensors} | {n for n, _ in attrs}
    names = [f"{n}_out" if n in taken else n for n in names]
    return {"inputs": tensors, "attrs": attrs, "outputs": list(zip(names, outs))}


def skeleton_program(trace: dict[str, Any], op_name: str) -> str:
    """The signature-only DSL program the skeleton is lowered from."""
    sig = signature(trace)
    ins, attrs, outs = sig["inputs"], sig["attrs"], sig["outputs"]
    if not ins or not outs:
        raise ValueError("the traced reference has no input tensor or no output tensor")

    def dt(rec: dict[str, Any]) -> str:
        return DSL_DTYPES.get(rec.get("dtype") or "float32", "A.f32")
    host_args = ", ".join([n for n, _ in ins] + ["hw"] + [n for n, _ in attrs])
    fields = [f"{n}_d{d}={n}.shape[{d}]" for n, rec in ins for d in range(len(rec["shape"]))]
    fields += [f"{n}={n}" for n, _ in attrs]
    first = ins[0][0]
    inputs = ", ".join(f'"{n}": ({dt(rec)},)' for n, rec in ins)
    outputs = ", ".join(f'"{n}": ({dt(rec)},)' for n, rec in outs)
    attr_decl = ", ".join(f'"{n}": {float(v) if isinstance(v, float) else int(v)!r}' for n, v in attrs)
    shapes = ", ".join(f'"{n}": {first}.shape' for n, _ in outs)
    kernel_args = ", ".join([n for n, _ in ins] + [n for n, _ in outs] + ["t"])
    return "\n".join([
        '"""Skeleton of the direct AscendC route (signature only)."""',
        "import adsl as A", "", "",
        "@A.tiling",
        f"def tiling({host_args}):",
        f"    return A.Tiling(block_dim=hw.vector_cores{''.join(', ' + f for f in fields)})", "", "",
        "@A.shapes",
        f"def shapes({', '.join([n for n, _ in ins] + [n for n, _ in attrs])}):",
        f"    return {{{shapes}}}", "", "",
        f"@A.kernel(inputs={{{inputs}}}, outputs={{{outputs}}}" + (f", attrs={{{attr_decl}}})" if attrs else ")"),
        f"def {op_name}({kernel_args}):",
        "    pass", ""])


def described(worker: Any, task: Task) -> dict[str, Any] | None:
    """A trace-shaped record of the task's values from the reference worker (a FakeTensorMode pass), for a
    reference torch.fx cannot trace (size()-dependent slicing in masked attention): names, shapes, dtypes."""
    if not task.cases:
        return None
    names, shapes = worker.params(), worker.describe(task.cases[0])
    if not isinstance(names, dict) or not hasattr(shapes, "args") or not shapes.outputs:
        return None

    def named(values: list[Any], labels: list[str], prefix: str) -> list[dict[str, Any]]:
        out = []
        for i, v in enumerate(values):
            name = labels[i] if i < len(labels) else f"{prefix}{i}"
            out.append({"name": name, "shape": v.shape, "dtype": v.dtype} if v.kind == "tensor"
                       else {"name": name, "value": v.value})
        return out
    return {"ok": True, "inputs": named(shapes.args, names.get("forward_params", []), "arg"),
            "init": named(shapes.init, names.get("init_params", []), "init"),
            "params": [{"name": p.name.removeprefix("param."), "shape": p.shape, "dtype": p.dtype}
                       for p in shapes.params if p.kind == "tensor" and p.name],
            "outputs": [{"shape": o.shape, "dtype": o.dtype} for o in shapes.outputs if o.kind == "tensor"]}


def skeleton(task: Task, trace: dict[str, Any] | None) -> tuple[KernelProject, str] | str:
    """(the skeleton project, a note on what it declares for the prompt), or why there is none."""
    if not trace or not trace.get("ok", True) or not trace.get("inputs"):
        why = (trace or {}).get("error", "no trace")
        return f"the direct AscendC route needs the traced reference (its inputs and outputs): {why}"
    try:
        program = skeleton_program(trace, task.kernel_name)
    except ValueError as e:
        return f"no skeleton for the direct AscendC route: {e}"
    lowered = dslkit.lower(program, task)
    if isinstance(lowered, str):
        return f"no skeleton for the direct AscendC route (the generator refused its signature): {lowered}"
    project, _ = lowered
    files = {path: _retitled(text) for path, text in project.files.items()}
    return project.model_copy(update={"files": files, "meta": {**project.meta, "route": "ascendc"}}), declared(trace)


def _retitled(text: str) -> str:
    """The generator's comments about the DSL program dropped: on this route the files are the model's."""
    text = text.replace("generated by kernelwright from the DSL program kernel.dsl.py.",
                        "skeleton generated by kernelwright (direct AscendC route).")
    text = re.sub(r"^// (Edit the DSL|TilingFunc is the DSL|Skeleton of the direct).*\n", "", text, flags=re.M)
    text = re.sub(r"^\s*// line \d+: .*\n", "", text, flags=re.M)
    return re.sub(r"\s*// line \d+$", "", text, flags=re.M)


def declared(trace: dict[str, Any], fields: bool = True) -> str:
    """How the task's values bind, in words: the names the referee matches to the reference's forward arguments,
    module parameters, init arguments and outputs, with the traced shapes (the skeleton's declarations; the
    DSL writer is shown the same names, `fields=False`)."""
    if not trace or not trace.get("inputs"):
        return ""
    sig = signature(trace)
    lines = [f"- input `{n}` <- {rec['name']} ({rec.get('dtype')}, traced shape {rec['shape']})"
             for n, rec in sig["inputs"]]
    lines += [f"- attribute `{n}` <- init/forward argument = {v!r}" + (f" (tiling field `{n}`)" if fields else "")
              for n, v in sig["attrs"]]
    lines += [f"- output `{n}` ({rec.get('dtype')}, traced shape {rec.get('shape')}): allocated by the referee at the "
              "reference's shape" for n, rec in sig["outputs"]]
    return "\n".join(lines)
