"""Format detection from content, and KernelProject.from_path over every form (the existing
directory and kernel-source behaviour included)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import formats_fixtures as fx  # noqa: E402

from kernelwright.tools.formats import export, load, render  # noqa: E402
from kernelwright.tools.formats.registry import detect_text  # noqa: E402
from kernelwright.tools.project import KernelProject, ProjectError  # noqa: E402


@pytest.fixture
def exported(tmp_path):
    """ScaledSub and the launch fixture written in every format, under names that give nothing away."""
    project = load(fx.msopgen_dir(tmp_path / "src"))
    paths = {}
    for fmt, source in (("mkb", project), ("npukb", project), ("mkb-direct", fx.launch_project())):
        (tmp_path / fmt).mkdir()
        paths[fmt] = Path(export(source, fmt, tmp_path / fmt / "answer.txt").paths[0])
    paths["akb"] = tmp_path / "akb"
    export(fx.asc_project(), "akb", paths["akb"])
    paths["cann"] = tmp_path / "cann"
    export(project, "cann", paths["cann"])
    return paths


# ids must not be bare "cann": the conftest skips tests carrying that keyword (needs CANN)
@pytest.mark.parametrize("fmt", ["mkb", "mkb-direct", "npukb", "akb", "cann"], ids=lambda f: f"as-{f}")
def test_from_path_detects_every_format(exported, fmt):
    project = KernelProject.from_path(exported[fmt])
    expect = {"mkb": "ScaledSubCustom", "npukb": "ScaledSub", "cann": "ScaledSub"}.get(fmt, "twice_kernel")
    assert project.name == expect
    assert project.kind == ("kernel_launch" if fmt in ("mkb-direct", "akb") else "msopgen")
    assert str(exported[fmt]) == project.origin
    if fmt != "npukb":   # NPUKernelBench carries no glue
        assert project.model_source() and "class ModelNew" in project.model_source()
        assert project.binding_sources()


def test_detect_text():
    assert detect_text('kernel_src = """x"""\nhost_tiling_src = ""\nproject_json_src = ""') == "mkb"
    assert detect_text('{"build": {"type": "ascendc_direct_launch"}, "sources": []}') == "mkb-direct"
    assert detect_text("<kernel_impl>\n```cpp\n```\n</kernel_impl>") == "npukb"
    assert detect_text("================== op_kernel/a.cpp ==================\n```cpp\nx\n```") == "npukb"
    assert detect_text("k\n// ==================== ASCEND_HOST_SECTION ====================\nh\n") == "akb"
    assert detect_text("#include <cstdio>\nint main() {}\n") is None


def test_existing_source_and_directory_behaviour_is_kept(tmp_path):
    src = tmp_path / "twice.cpp"
    src.write_text(fx.LAUNCH_KERNEL)
    p = KernelProject.from_path(src)
    assert (p.kind, p.name, list(p.files), p.glue) == ("kernel_launch", "twice_kernel", ["twice.cpp"], {})
    (tmp_path / "proj" / "op_host").mkdir(parents=True)
    (tmp_path / "proj" / "op_kernel").mkdir()
    (tmp_path / "proj" / "op_host" / "scaled_sub.cpp").write_text(fx.HOST)
    (tmp_path / "proj" / "op_kernel" / "scaled_sub.cpp").write_text(fx.KERNEL)
    (tmp_path / "proj" / "spec.py").write_text("EXPECT = []\n")     # corpus metadata is not glue
    (tmp_path / "proj" / "build").mkdir()
    (tmp_path / "proj" / "build" / "junk.cpp").write_text("junk")
    p = KernelProject.from_path(tmp_path / "proj")
    assert (p.kind, p.name, sorted(p.files), p.glue) == ("msopgen", "ScaledSub",
                                                         ["op_host/scaled_sub.cpp", "op_kernel/scaled_sub.cpp"], {})
    assert p.op.inputs[0].dtypes == ["float32", "float16"]            # filled from the OpDef
    with pytest.raises(ProjectError, match="no such file"):
        KernelProject.from_path(tmp_path / "missing")
    (tmp_path / "notes.txt").write_text("hello")
    with pytest.raises(ProjectError, match="not a kernel submission we know"):
        KernelProject.from_path(tmp_path / "notes.txt")


def test_asc_source_with_host_section_keeps_its_name_and_lines(tmp_path):
    asc = tmp_path / "mine.asc"
    asc.write_text("\n\n" + fx.LAUNCH_KERNEL + "// ===== ASCEND_HOST_SECTION =====\n" + fx.TORCH_HOST)
    p = KernelProject.from_path(asc)
    assert list(p.files) == ["mine.asc"] and p.files["mine.asc"].startswith("\n\n#include")
    assert p.binding_sources() == {"bind/custom_op_host.cpp": fx.TORCH_HOST} and p.model_source() is None


def test_direct_launch_layout_written_to_disk_reads_back(tmp_path):
    project = fx.launch_project()
    project.write(tmp_path / "d")
    back = KernelProject.from_path(tmp_path / "d")
    assert back.files == project.files and back.glue == project.glue     # PYBIND11_MODULE marks the binding


def test_msopgen_json_picks_the_prototype(tmp_path):
    root = fx.msopgen_dir(tmp_path / "p")
    (root / "other.json").write_text(json.dumps({"unrelated": True}))
    assert load(root).op.attrs[0].name == "alpha"
    (root / "scaled_sub.json").write_text('[{"op": "ScaledSub", "input_desc": [{"name": "x", "type": ["float99"]}]}]')
    with pytest.raises(ProjectError, match="unknown dtype 'float99'"):
        load(root)


def test_render_does_not_touch_the_disk(tmp_path):
    before = sorted(tmp_path.rglob("*"))
    rendered = render(fx.msopgen_project(), "cann")
    assert "build.sh" in rendered.files and sorted(tmp_path.rglob("*")) == before
