"""SOL-ExecBench tasks (definition.json + workload.jsonl, as npu-kernelbench and AKG Agents read them):
loaded as tasks whose reference runs in the worker with each workload's axes and input sources; bad
definitions are TaskErrors naming the field."""
import json

import numpy as np
import pytest

from kernelwright.tools.task import TaskError
from kernelwright.tools.tasks import load_task, load_tasks
from kernelwright.tools.tasks.reference import ReferenceWorker, RefRun

REFERENCE = """import torch

def make_index(axes_and_scalars, device):
    return {"index": torch.arange(axes_and_scalars["rows"], device=device).flip(0)}

def run(x, weight, index, eps):
    var = x.pow(2).mean(-1, keepdim=True)
    y = x * torch.rsqrt(var + eps) * weight
    return y[index], y.sum()
"""

DEFINITION = {
    "name": "rms_rows_h64",
    "op_type": "rmsnorm",
    "description": "rmsnorm, rows reversed",
    "axes": {"batch": {"type": "var"}, "seq": {"type": "var"}, "rows": {"type": "expr", "expression": "batch * seq"},
             "hidden": {"type": "const", "value": 64}},
    "inputs": {"x": {"shape": ["rows", "hidden"], "dtype": "float32"}, "weight": {"shape": ["hidden"], "dtype": "float32"},
               "index": {"shape": ["rows"], "dtype": "int64"}, "eps": {"shape": None, "dtype": "float32"}},
    "outputs": {"y": {"shape": ["rows", "hidden"], "dtype": "float32"}, "total": {"shape": [], "dtype": "float32"}},
    "custom_inputs_entrypoint": "make_index",
    "reference": REFERENCE,
}
WORKLOADS = [
    {"uuid": "a1b2c3d4-0000", "axes": {"batch": 2, "seq": 3},
     "inputs": {"x": {"type": "random"}, "weight": {"type": "random"}, "index": {"type": "custom"},
                "eps": {"type": "scalar", "value": 1e-6}}, "tolerance": {"max_atol": 1e-3, "max_rtol": 1e-3}},
    {"uuid": "e5f6a7b8-1111", "axes": {"batch": 1, "seq": 5},
     "inputs": {"x": {"type": "random"}, "weight": {"type": "random"}, "index": {"type": "custom"},
                "eps": {"type": "scalar", "value": 1e-5}}},
]


def write(root, definition=DEFINITION, workloads=WORKLOADS):
    root.mkdir(parents=True, exist_ok=True)
    (root / "definition.json").write_text(json.dumps(definition))
    (root / "workload.jsonl").write_text("".join(json.dumps(w) + "\n" for w in workloads))
    return root


def test_a_sol_task_loads_with_one_case_per_workload(tmp_path):
    task = load_task(write(tmp_path / "L1" / "rms"))
    assert (task.name, task.layout, task.input_kind, task.category) == ("rms_rows_h64", "sol", "input_groups", "rmsnorm")
    assert [c.id for c in task.cases] == ["workload 0 a1b2c3d4", "workload 1 e5f6a7b8"]
    assert task.cases[0].params == {"axes": {"batch": 2, "seq": 3}, "tolerance": {"max_atol": 1e-3, "max_rtol": 1e-3}}
    assert task.cases[1].shapes is None                # an expr axis: the adapter computes the shapes
    assert [t.name for t in load_tasks(tmp_path)] == ["rms_rows_h64"]   # a tree of problem directories


def test_the_reference_runs_with_the_workload_axes_and_input_sources(tmp_path):
    task = load_task(write(tmp_path / "rms"))
    with ReferenceWorker(task, timeout_s=60) as w:
        run = w.run(task.cases[0], 7)
        again = w.run(task.cases[1], 7)
    assert isinstance(run, RefRun), run
    x, weight, index = (a.array for a in run.args[:3])
    assert x.shape == (6, 64) and weight.shape == (64,) and run.args[3].value == pytest.approx(1e-6)
    np.testing.assert_array_equal(index, np.arange(6)[::-1])       # made by custom_inputs_entrypoint
    y = x / np.sqrt((x ** 2).mean(-1, keepdims=True) + 1e-6) * weight
    np.testing.assert_allclose(run.outputs[0].array, y[index], rtol=1e-5, atol=1e-5)
    assert run.outputs[1].array.shape == ()
    assert isinstance(again, RefRun) and again.args[0].array.shape == (5, 64)


@pytest.mark.parametrize("change, says", [
    (lambda d: d.pop("reference"), "missing reference"),
    (lambda d: d["axes"].update(hidden={"type": "const", "value": "64"}), "const axis 'hidden' needs an integer"),
    (lambda d: d["axes"].update(rows={"type": "expr", "expression": "__import__('os').getpid()"}), "axis 'rows' uses"),
    (lambda d: d["inputs"]["x"].update(dtype="float128"), "input 'x' has dtype 'float128'"),
    (lambda d: d["outputs"]["y"].update(shape=["rows", "width"]), "uses axes width"),
])
def test_bad_definitions_are_task_errors(tmp_path, change, says):
    d = json.loads(json.dumps(DEFINITION))
    change(d)
    with pytest.raises(TaskError, match=says):
        load_task(write(tmp_path / "bad", d))


def test_a_workload_without_its_var_axes_is_a_task_error(tmp_path):
    with pytest.raises(TaskError, match="line 1 gives no value for the var axes seq"):
        load_task(write(tmp_path / "bad", workloads=[{"uuid": "x", "axes": {"batch": 1}, "inputs": {}}]))
