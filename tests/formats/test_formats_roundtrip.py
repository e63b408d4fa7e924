"""Every format round-trips: import -> export -> import gives the same project, and
export -> import -> export gives the same bytes."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import formats_fixtures as fx  # noqa: E402

from kernelwright.tools.formats import export, load, loads, render  # noqa: E402
from kernelwright.tools.formats.mkb_direct import BUILD_TYPE  # noqa: E402


def _text(rendered) -> str:
    ((_, text),) = rendered.files.items()
    return text


def _round_trip_text(project, fmt: str):
    """(first export, project read back) after checking both round-trip properties."""
    first = _text(render(project, fmt))
    back = loads(first, f"<{fmt}>")
    assert _text(render(back, fmt)) == first                     # export -> import -> export: same bytes
    assert fx.same(loads(_text(render(back, fmt)), "<again>"), back)  # import -> export -> import: same project
    return first, back


@pytest.fixture
def scaled_sub(tmp_path):
    return load(fx.msopgen_dir(tmp_path / "scaled_sub"))


def test_cann_directory_round_trip(scaled_sub, tmp_path):
    first = export(scaled_sub, "cann", tmp_path / "a")
    back = load(tmp_path / "a")
    assert fx.same(back, scaled_sub)
    export(back, "cann", tmp_path / "b")
    for path in first.paths:
        rel = Path(path).relative_to(tmp_path / "a")
        assert (tmp_path / "b" / rel).read_bytes() == Path(path).read_bytes(), rel
    assert sorted(p.relative_to(tmp_path / "a").as_posix() for p in (tmp_path / "a").rglob("*") if p.is_file()) == sorted(
        p.relative_to(tmp_path / "b").as_posix() for p in (tmp_path / "b").rglob("*") if p.is_file())
    presets = json.loads((tmp_path / "a" / "CMakePresets.json").read_text())
    assert presets["configurePresets"][0]["cacheVariables"]["ASCEND_COMPUTE_UNIT"]["value"] == "ascend910b"
    assert json.loads((tmp_path / "a" / "scaled_sub.json").read_text())[0]["op"] == "ScaledSub"


def test_mkb_round_trip_renames_to_custom(scaled_sub):
    text, back = _round_trip_text(scaled_sub, "mkb")
    assert back.name == "ScaledSubCustom" and back.snake_name == "scaled_sub_custom"
    assert sorted(back.files) == ["op_host/scaled_sub_custom.cpp", "op_host/scaled_sub_custom_tiling.h",
                                  "op_kernel/scaled_sub_custom.cpp"]
    assert 'void scaled_sub_custom(' in back.files["op_kernel/scaled_sub_custom.cpp"]
    assert "aclnnScaledSubCustom" in back.binding_sources()["bind/op.cpp"]
    assert "custom_ops_lib.scaled_sub_custom(x, y, self.alpha)" in back.model_source()
    assert back.op == scaled_sub.op and back.op.attrs[0].default == 0.5
    # the MultiKernelBench harness exec()s the file: it must yield exactly our six strings
    scope: dict = {}
    exec(compile(text, "answer.py", "exec"), scope)  # our own output, not model output
    assert scope["kernel_src"].strip() == back.files["op_kernel/scaled_sub_custom.cpp"].strip()
    assert json.loads(scope["project_json_src"])[0]["op"] == "ScaledSubCustom"


def test_mkb_hand_written_answer_round_trips():
    answer = ("project_json_src='''\n" + fx.OP_JSON + "'''\n"
              'host_tiling_src = """\n' + fx.TILING_H + '"""\n'
              "host_operator_src = r'''" + fx.HOST + "'''\n"
              'kernel_src = f"""' + fx.KERNEL.replace("{", "{{").replace("}", "}}") + '"""\n'
              'python_bind_src = "#include <torch/extension.h>\\n" + """' + fx.BIND.split("\n", 1)[1] + '"""\n'
              "model_src = '''\n" + fx.MODEL + "'''\n")
    project = loads(answer, "answer.py")
    assert project.name == "ScaledSub" and project.files["op_kernel/scaled_sub.cpp"] == fx.KERNEL
    assert project.glue["bind/op.cpp"].startswith("#include <torch/extension.h>\n")
    _, back = _round_trip_text(project, "mkb")
    assert back.files["op_kernel/scaled_sub_custom.cpp"] == fx.KERNEL.replace("void scaled_sub(", "void scaled_sub_custom(")


def test_npukb_sections_round_trip(scaled_sub):
    text, back = _round_trip_text(scaled_sub, "npukb")
    assert text.startswith("================== op_host/scaled_sub_tiling.h ==================\n```cpp\n#include")
    assert back.files == scaled_sub.files and back.op == scaled_sub.op and back.glue == {}


def test_npukb_kernel_impl_round_trip():
    kernel = fx.KERNEL.replace("GET_TILING_DATA(t, tiling);", "struct { uint32_t total, perCore; float alpha; } t{1024, 256, 0.5f};")
    reply = f"Here is the kernel.\n<kernel_impl>\n```cpp\n{kernel}```\n</kernel_impl>\nDone."
    project = loads(reply, "reply.txt")
    assert project.kind == "msopgen" and project.name == "ScaledSub" and list(project.files) == ["op_kernel/scaled_sub.cpp"]
    text, back = _round_trip_text(project, "npukb")
    assert text.startswith("<kernel_impl>\n```cpp\n") and text.endswith("```\n</kernel_impl>\n")
    assert fx.same(back, project)


def test_mkb_direct_round_trip():
    doc = {"name": "twice_direct", "author": "tests", "problem": "twice", "format_version": "0.1",
           "entry": {"model": "ModelNew.py::ModelNew"}, "build": {"type": BUILD_TYPE, "module_name": "twice_ops"},
           "sources": [{"path": "ModelNew.py", "content": fx.launch_project().glue["ModelNew.py"]},
                       {"path": "kernel/twice.cpp", "content": fx.LAUNCH_KERNEL},
                       {"path": "kernel/pybind11.cpp", "content": fx.PYBIND}]}
    project = loads(json.dumps(doc), "twice.json")
    assert project.kind == "kernel_launch" and project.name == "twice_kernel"
    assert list(project.files) == ["kernel/twice.cpp"] and set(project.glue) == {"ModelNew.py", "kernel/pybind11.cpp"}
    assert project.binding_sources() == {"kernel/pybind11.cpp": fx.PYBIND} and project.model_path() == "ModelNew.py"
    text, back = _round_trip_text(project, "mkb-direct")
    assert json.loads(text) == doc
    assert fx.same(back, project)


def test_akb_directory_round_trip(tmp_path):
    project = fx.asc_project()
    first = export(project, "akb", tmp_path / "a")
    asc = (tmp_path / "a" / "custom_op.asc").read_text()
    assert asc.count("ASCEND_HOST_SECTION") == 1 and asc.index("__global__") < asc.index("TORCH_LIBRARY")
    back = load(tmp_path / "a")
    assert fx.same(back, project) and back.model_path() == "model_new.py"
    export(back, "akb", tmp_path / "b")
    for path in first.paths:
        assert (tmp_path / "b" / Path(path).name).read_bytes() == Path(path).read_bytes()
    assert fx.same(load(tmp_path / "b"), back)


def test_akb_reply_imports_like_the_files(tmp_path):
    export(fx.asc_project(), "akb", tmp_path / "a")
    asc, model = (tmp_path / "a" / "custom_op.asc").read_text(), (tmp_path / "a" / "model_new.py").read_text()
    reply = f"```custom_op.asc\n{asc}```\n\n```model_new.py\n{model}```\n"
    assert fx.same(loads(reply, "reply.md"), load(tmp_path / "a"))


def test_cross_format_chain_keeps_the_operator(scaled_sub, tmp_path):
    """cann -> mkb -> npukb -> cann: only the MultiKernelBench rename and the glue npukb drops change."""
    via_mkb = loads(_text(render(scaled_sub, "mkb")))
    via_npukb = loads(_text(render(via_mkb, "npukb")))
    export(via_npukb, "cann", tmp_path / "c", name="ScaledSub")
    final = load(tmp_path / "c")
    assert final.files == scaled_sub.files and final.op == scaled_sub.op and final.glue == {}
