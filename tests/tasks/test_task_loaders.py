"""Task loaders on our own small trees in each benchmark's layout (no torch is imported here)."""
from pathlib import Path

import pytest

from kernelwright.tools.tasks import TaskError, load_task, load_tasks
from kernelwright.tools.tasks.csvrows import read_rows

FIX = Path(__file__).parent / "fixtures"
SCALE_ADD = FIX / "npukb/tasks/level1/Math/ScaleAdd"


def test_single_py_file():
    t = load_task(FIX / "kernelbench/level1/19_ReLU.py")
    assert (t.layout, t.level, t.input_kind) == ("kernelbench", "level1", "get_inputs")
    assert (t.op_type, t.kernel_name) == ("Op19ReLU", "op19_re_lu")
    assert [c.id for c in t.cases] == ["default"]


def test_loading_never_imports_the_task(tmp_path):
    f = tmp_path / "boom.py"
    f.write_text("raise SystemExit('imported!')\nclass Model: pass\ndef get_inputs(): pass\n")
    assert load_task(f).layout == "py"


def test_multikernelbench_tree_and_json_groups():
    tasks = {t.name: t for t in load_tasks(FIX / "mkb")}
    assert set(tasks) == {"leaky", "3_scale_rows"}
    leaky = tasks["leaky"]
    assert (leaky.layout, leaky.category, leaky.op_type) == ("mkb", "activation", "Leaky")
    groups = tasks["3_scale_rows"]
    assert groups.input_kind == "input_groups" and groups.op_type == "Op3ScaleRows"
    assert [c.id for c in groups.cases] == ["group 0 float16", "group 1 float32", "group 2 bfloat16"]
    assert groups.cases[2].shapes == [[100000, 3000], [3000]] and groups.cases[2].index == 2


def test_kernelbench_tree():
    tasks = load_tasks(FIX / "kernelbench")
    assert sorted(t.name for t in tasks) == ["19_ReLU", "2_Linear_bias"]
    assert {t.layout for t in tasks} == {"kernelbench"}


def test_npukb_task_directory():
    t = load_task(SCALE_ADD)
    assert (t.layout, t.level, t.category, t.op_type, t.kernel_name) == ("npukb", "level1", "Math", "ScaleAdd", "scale_add")
    assert t.inputs_source.endswith("validation/prepare_inputs.py") and t.custom_check
    assert t.description.startswith("# ScaleAdd") and t.golden and Path(t.golden, "op_host").is_dir()
    assert [c.id for c in t.cases] == ["case_id 0", "case_id 1", "case_id 2"]
    # typed as pandas would: ints stay ints, "-2" in a float column becomes a float, missing notes are None
    assert t.cases[0].params == {"case_id": 0, "input_shape": "[37, 1000]", "dtype": "float32", "scale": 0.75,
                                 "note": "odd rows"}
    assert t.cases[1].params["scale"] == -2.0 and t.cases[1].params["note"] is None


def test_npukb_inputs_come_from_module_when_it_defines_get_init_inputs():
    t = load_task(FIX / "quirks")
    assert t.inputs_source is None and t.input_kind == "npukb_rows" and not t.custom_check and t.golden is None


def test_npukb_tree():
    tasks = load_tasks(FIX / "npukb")
    assert [t.name for t in tasks] == ["ScaleAdd"]


def test_dtype_variants_repeat_every_case():
    t = load_task(FIX / "kernelbench/level1/19_ReLU.py", dtypes=["float16", "bfloat16"])
    assert [(c.id, c.dtype) for c in t.cases] == [("default float16", "float16"), ("default bfloat16", "bfloat16")]


def test_csv_typing_like_pandas():
    rows = read_rows("case_id;flag;eps;shape;n\n0;true;1e-5;[1, 2];3\n1;FALSE;;[4];4.0\n")
    assert rows[0] == {"case_id": 0, "flag": True, "eps": 1e-5, "shape": "[1, 2]", "n": 3}
    assert rows[1] == {"case_id": 1, "flag": False, "eps": None, "shape": "[4]", "n": 4}
    assert isinstance(rows[0]["n"], int)


@pytest.mark.parametrize("path,message", [
    (FIX / "bad/not_a_task.py", "missing Model, get_inputs"),
    (FIX / "nowhere.py", "no such file"),
    (FIX / "kernelbench", "for a whole benchmark tree use load_tasks"),
])
def test_bad_tasks_say_what_is_wrong(path, message):
    with pytest.raises(TaskError, match=message):
        load_task(path)


def test_ragged_csv_names_the_line(tmp_path):
    d = tmp_path / "Op"
    (d / "validation").mkdir(parents=True)
    (d / "validation/module.py").write_text("class Model: pass\ndef get_inputs(p, device=None): pass\n"
                                            "def get_init_inputs(p, device=None): pass\n")
    (d / "validation/test_cases.csv").write_text("case_id;shape\n0;[1]\n1;[2];extra\n")
    with pytest.raises(TaskError, match=r"line 3 has 3 cells, the header has 2"):
        load_task(d)


def test_empty_tree_is_an_error(tmp_path):
    with pytest.raises(TaskError, match="no tasks found"):
        load_tasks(tmp_path)


def test_json_groups_with_absent_optional_tensors_and_bad_lines(tmp_path):
    """An optional tensor left out of a group ("shape": null, as NPUKernelBench's moe_finalize_routing has) adds
    no shape; a line that is not an object with a list of inputs is a TaskError naming the line."""
    task = tmp_path / "mkb" / "reference" / "npukernelbench_level2" / "6_opt.py"
    task.parent.mkdir(parents=True)
    task.write_text("class Model: pass\ndef get_input_groups(): pass\ndef get_init_inputs(): return []\n")
    sidecar = task.with_suffix(".json")
    sidecar.write_text('{"inputs": [{"name": "x", "type": "tensor", "dtype": "float16", "shape": [8, 4]},'
                       ' {"name": "skip", "type": "tensor", "required": false, "dtype": "float16", "shape": null}]}\n')
    assert load_task(task).cases[0].shapes == [[8, 4]]
    for bad in ('{"inputs": null}', "[1, 2]"):
        sidecar.write_text(bad + "\n")
        with pytest.raises(TaskError, match="line 1 has no list of"):
            load_task(task)
