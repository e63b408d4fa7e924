"""Load a SOL-ExecBench task, as Huawei's npu-kernelbench and AKG Agents read them: a directory with
`definition.json` (axes, named inputs and outputs, a PyTorch `reference` defining `run`) and
`workload.jsonl` (one case per line: values of the `var` axes and where each input comes from:
`random`, `scalar`, `safetensors` or `custom`). The schema is NVIDIA's (github.com/NVIDIA/SOL-ExecBench,
docs/definition.md and docs/workload.md; it follows FlashInfer-Bench's trace schema).

The reference worker imports tasks in the KernelBench form, so the loader writes a small adapter
module (`Model.forward(*inputs)` calls the definition's `run`; `get_input_groups()` makes one workload's
inputs) next to copies of the two files, in a content-addressed directory under $KERNELWRIGHT_HOME.
The files are parsed here, never run; the reference runs in the worker like any task's. Per-workload
tolerances are kept in each case's params (the referee's presets decide the comparison)."""
from __future__ import annotations

import ast
import hashlib
import json
import os
from pathlib import Path
from typing import Any

from kernelwright.tools.task import Task, TaskCase, TaskError, with_dtype_variants
from kernelwright.tools.tasks.names import op_names

DTYPES = {"float64", "float32", "float16", "bfloat16", "float8_e4m3fn", "float8_e5m2", "float4_e2m1",
          "float4_e2m1fn_x2", "int64", "int32", "int16", "int8", "bool"}
INPUT_TYPES = {"random", "scalar", "safetensors", "custom"}
_ALLOWED_EXPR = (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Name, ast.Load, ast.Constant, ast.Add, ast.Sub, ast.Mult,
                 ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.UAdd, ast.USub)

ADAPTER = '''"""A SOL-ExecBench task in the KernelBench form (written by kernelwright.tools.tasks.sol)."""
import json
import os

import torch

_HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(_HERE, "definition.json")) as _f:
    DEFINITION = json.load(_f)
_REFERENCE = {}
exec(compile(DEFINITION["reference"], "definition.json:reference", "exec"), _REFERENCE)


class Model(torch.nn.Module):
    def forward(self, *inputs):
        return _REFERENCE["run"](*inputs)


def _axes(workload):
    axes = {k: v["value"] for k, v in DEFINITION["axes"].items() if v.get("type") == "const"}
    axes.update(workload.get("axes", {}))
    pending = {k: v["expression"] for k, v in DEFINITION["axes"].items() if v.get("type") == "expr"}
    while pending:  # an expression may use another expression's axis
        done = {k: int(eval(e, {"__builtins__": {}}, dict(axes))) for k, e in pending.items()
                if all(n in axes for n in _names(e))}
        if not done:
            raise ValueError("axes " + ", ".join(sorted(pending)) + " cannot be computed from the workload's axes")
        axes.update(done)
        pending = {k: e for k, e in pending.items() if k not in done}
    return axes


def _names(expr):
    import ast
    return {n.id for n in ast.walk(ast.parse(expr, mode="eval")) if isinstance(n, ast.Name)}


def _random(shape, dtype):
    dt = getattr(torch, dtype)
    if dtype == "bool":
        return torch.rand(shape) < 0.5
    if not dt.is_floating_point:
        return torch.randint(-8, 8, shape, dtype=dt)
    if dt.itemsize < 2:  # 8-bit floats: drawn in float32 and cast
        return torch.randn(shape).to(dt)
    return torch.randn(shape, dtype=dt)


def _inputs(workload):
    axes = _axes(workload)
    made = {}
    specs = workload.get("inputs", {})
    custom = [n for n, s in specs.items() if s.get("type") == "custom"]
    if custom:
        fn = _REFERENCE[DEFINITION["custom_inputs_entrypoint"]]
        scalars = {n: s["value"] for n, s in specs.items() if s.get("type") == "scalar"}
        made.update(fn({**axes, **scalars}, torch.device("cpu")))
    for name, tensor in DEFINITION["inputs"].items():
        spec = specs.get(name, {"type": "random"})
        if spec["type"] == "scalar":
            made[name] = spec["value"]
        elif spec["type"] == "safetensors":
            from safetensors.torch import load_file
            path = os.path.join(DEFINITION.get("_root", _HERE), spec["path"])
            made[name] = load_file(path)[spec["tensor_key"]]
        elif spec["type"] == "random":
            shape = [] if tensor["shape"] is None else [axes[a] for a in tensor["shape"]]
            made[name] = _random(shape, tensor["dtype"])
    return [made[name] for name in DEFINITION["inputs"]]


def get_input_groups():
    with open(os.path.splitext(os.path.abspath(__file__))[0] + ".json") as f:
        return [_inputs(json.loads(line)) for line in f if line.strip()]


def get_init_inputs():
    return []
'''


def is_sol_task(path: Path) -> bool:
    return (path / "definition.json").is_file()


def _home() -> Path:
    return Path(os.environ.get("KERNELWRIGHT_HOME", Path.home() / ".cache" / "kernelwright"))


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(errors="replace"))
    except json.JSONDecodeError as e:
        raise TaskError(f"{path}:{e.lineno}: not valid JSON ({e.msg})") from None


def _check_expr(name: str, expr: Any, where: str) -> None:
    try:
        tree = ast.parse(str(expr), mode="eval")
    except SyntaxError:
        raise TaskError(f"{where}: axis '{name}' has an expression that does not parse: {expr!r}") from None
    bad = [type(n).__name__ for n in ast.walk(tree) if not isinstance(n, _ALLOWED_EXPR)]
    if bad:
        raise TaskError(f"{where}: axis '{name}' uses {bad[0]} in {expr!r}; expressions may use axis names, "
                        "numbers, + - * / // % ** and parentheses")


def check_definition(d: Any, where: str) -> dict[str, Any]:
    """The fields the schema requires, with the values it allows."""
    if not isinstance(d, dict):
        raise TaskError(f"{where}: expected one JSON object")
    missing = [k for k in ("name", "axes", "inputs", "outputs", "reference") if k not in d]
    if missing:
        raise TaskError(f"{where}: missing {', '.join(missing)} (a SOL-ExecBench definition has name, axes, inputs, "
                        "outputs and reference)")
    axes = d["axes"]
    for name, ax in axes.items():
        kind = ax.get("type") if isinstance(ax, dict) else None
        if kind not in ("const", "var", "expr"):
            raise TaskError(f"{where}: axis '{name}' has type {kind!r}; expected const, var or expr")
        if kind == "const" and not isinstance(ax.get("value"), int):
            raise TaskError(f"{where}: const axis '{name}' needs an integer value")
        if kind == "expr":
            _check_expr(name, ax.get("expression"), where)
    for side in ("inputs", "outputs"):
        for name, t in d[side].items():
            if not isinstance(t, dict) or t.get("dtype") not in DTYPES:
                raise TaskError(f"{where}: {side[:-1]} '{name}' has dtype {t.get('dtype') if isinstance(t, dict) else t!r}"
                                f"; known: {', '.join(sorted(DTYPES))}")
            unknown = [a for a in (t.get("shape") or []) if a not in axes]
            if unknown:
                raise TaskError(f"{where}: {side[:-1]} '{name}' uses axes {', '.join(unknown)} that `axes` does not define")
    if "def run(" not in d["reference"]:
        raise TaskError(f"{where}: the reference defines no function run(...)")
    return d


def _workloads(path: Path, definition: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    var = {k for k, v in definition["axes"].items() if v["type"] == "var"}
    for i, text in enumerate(line for line in path.read_text(errors="replace").splitlines() if line.strip()):
        try:
            w = json.loads(text)
        except json.JSONDecodeError as e:
            raise TaskError(f"{path}: line {i + 1} is not JSON ({e.msg})") from None
        missing = sorted(var - set(w.get("axes", {})))
        if missing:
            raise TaskError(f"{path}: line {i + 1} gives no value for the var axes {', '.join(missing)}")
        for name, spec in (w.get("inputs") or {}).items():
            if name not in definition["inputs"] or spec.get("type") not in INPUT_TYPES:
                raise TaskError(f"{path}: line {i + 1}: input {name!r} of type {spec.get('type')!r} (inputs: "
                                f"{', '.join(definition['inputs'])}; types: {', '.join(sorted(INPUT_TYPES))})")
            if spec["type"] == "custom" and not definition.get("custom_inputs_entrypoint"):
                raise TaskError(f"{path}: line {i + 1}: input {name!r} is custom but the definition names no "
                                "custom_inputs_entrypoint")
        out.append(w)
    if not out:
        raise TaskError(f"{path}: no workloads")
    return out


def _shapes(definition: dict[str, Any], workload: dict[str, Any]) -> list[list[int]] | None:
    axes = {k: v["value"] for k, v in definition["axes"].items() if v["type"] == "const"} | dict(workload["axes"])
    if any(v["type"] == "expr" for v in definition["axes"].values()):
        return None   # the adapter evaluates them; declared shapes are a nicety
    return [[int(axes[a]) for a in t["shape"]] for t in definition["inputs"].values() if t["shape"] is not None]


def load_sol(path: str | Path, *, dtypes: list[str] | None = None) -> Task:
    root = Path(path)
    where = str(root / "definition.json")
    definition = check_definition(_read_json(root / "definition.json"), where)
    workload_file = root / "workload.jsonl"
    if not workload_file.is_file():
        raise TaskError(f"{root}: no workload.jsonl next to definition.json")
    workloads = _workloads(workload_file, definition)
    stem = op_names(str(definition["name"]))[1]
    text = json.dumps(definition | {"_root": str(root.resolve())})   # key order is the argument order
    lines = "".join(json.dumps(w, sort_keys=True) + "\n" for w in workloads)
    out = _home() / "tasks" / "sol" / hashlib.sha256((ADAPTER + text + lines).encode()).hexdigest()[:16]
    out.mkdir(parents=True, exist_ok=True)
    (out / "definition.json").write_text(text)
    (out / f"{stem}.json").write_text(lines)
    (out / f"{stem}.py").write_text(ADAPTER)
    cases = [TaskCase(id=f"workload {i} {str(w.get('uuid', ''))[:8]}".strip(), index=i, shapes=_shapes(definition, w),
                      params={"axes": w["axes"], **({"tolerance": w["tolerance"]} if "tolerance" in w else {})})
             for i, w in enumerate(workloads)]
    op_type, kernel = op_names(str(definition["name"]))
    notes = [f"SOL-ExecBench task from {root}; outputs: {', '.join(definition['outputs'])}"]
    if any("tolerance" in w for w in workloads):
        notes.append("workloads carry their own tolerance (case params); the referee judges with its preset")
    return Task(name=str(definition["name"]), op_type=op_type, kernel_name=kernel, layout="sol",
                source=str(out / f"{stem}.py"), input_kind="input_groups", cases=with_dtype_variants(cases, dtypes),
                category=definition.get("op_type"), description=definition.get("description"), notes=notes)
