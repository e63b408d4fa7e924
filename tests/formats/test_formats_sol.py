"""SOL-ExecBench solutions (solution.json, as npu-kernelbench and AKG Agents read them): an AscendC
solution carries the operator's sources and its C++ torch binding, whose function is the entry point;
it round-trips, and what it cannot carry is a clear error."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import formats_fixtures as fx  # noqa: E402

from kernelwright.tools.formats import load, loads, render  # noqa: E402
from kernelwright.tools.formats.base import FormatError  # noqa: E402


def _doc(project, **kw) -> dict:
    ((name, text),) = render(project, "sol", **kw).files.items()
    assert name == "solution.json"
    return json.loads(text)


def test_an_msopgen_operator_becomes_a_solution_entered_through_its_binding(tmp_path):
    project = load(fx.msopgen_dir(tmp_path / "scaled_sub"))
    rendered = render(project, "sol", name="scaled_sub_h1024")
    doc = json.loads(rendered.files["solution.json"])
    assert (doc["name"], doc["definition"], doc["author"]) == ("scaled_sub_h1024_ascendc", "scaled_sub_h1024", "kernelwright")
    assert doc["spec"] == {"languages": ["ascendc"], "target_hardware": ["Ascend910B"],
                           "entry_point": "bind/op.cpp::scaled_sub_impl_npu", "destination_passing_style": False,
                           "binding": "torch"}
    assert [s["path"] for s in doc["sources"]] == ["op_host/scaled_sub.cpp", "op_host/scaled_sub_tiling.h",
                                                   "op_kernel/scaled_sub.cpp", "bind/op.cpp"]
    assert "ModelNew is left out" in rendered.notes[0]   # C++ and Python sources do not mix in a solution


def test_a_solution_round_trips(tmp_path):
    first = render(load(fx.msopgen_dir(tmp_path / "scaled_sub")), "sol", name="scaled_sub_h1024").files["solution.json"]
    back = loads(first, "<sol>")
    assert back.kind == "msopgen" and back.name == "ScaledSub" and sorted(back.glue) == ["bind/op.cpp"]
    assert back.meta["definition"] == "scaled_sub_h1024" and back.op is not None
    again = render(back, "sol").files["solution.json"]
    assert again == first
    assert fx.same(loads(again, "<again>"), back)


def test_a_kernel_launch_project_is_entered_through_its_pybind_function():
    doc = _doc(fx.launch_project())
    assert doc["spec"]["entry_point"].startswith("kernel/pybind11.cpp::")
    assert [s["path"] for s in doc["sources"]] == ["kernel/twice.cpp", "kernel/pybind11.cpp"]
    back = loads(json.dumps(doc), "<sol>")
    assert back.kind == "kernel_launch" and back.files == {"kernel/twice.cpp": fx.LAUNCH_KERNEL}


def test_an_operator_without_a_binding_needs_generated_glue():
    with pytest.raises(FormatError, match="no C\\+\\+ torch binding"):
        render(fx.msopgen_project(), "sol")
    doc = json.loads(render(fx.msopgen_project(), "sol", generate_glue=True).files["solution.json"])
    assert doc["spec"]["entry_point"] == "bind/op.cpp::scaled_sub_impl_npu"


@pytest.mark.parametrize("change, says", [
    (lambda d: d["spec"].pop("entry_point"), "missing spec.entry_point"),
    (lambda d: d["spec"].update(entry_point="nowhere.cpp::run"), "names nowhere.cpp, which is not among sources"),
    (lambda d: d["sources"].append({"path": "../escape.cpp", "content": ""}), "must be relative"),
    (lambda d: d.pop("definition"), None),   # without `definition` it is not a solution at all
])
def test_malformed_solutions_are_format_errors(tmp_path, change, says):
    doc = _doc(load(fx.msopgen_dir(tmp_path / "scaled_sub")))
    change(doc)
    with pytest.raises(FormatError, match=says or "not a kernel submission"):
        loads(json.dumps(doc), "<sol>")
