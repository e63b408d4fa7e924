"""`kernelwright export`: exit codes, messages, and what lands on disk."""
from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import formats_fixtures as fx  # noqa: E402

from kernelwright.agent.cli import main  # noqa: E402
from kernelwright.tools.formats import load  # noqa: E402


def test_export_each_format(tmp_path, capsys):
    src = fx.msopgen_dir(tmp_path / "scaled_sub")
    assert main(["export", str(src), "--format", "mkb", "--out", str(tmp_path / "o" / "answer.py")]) == 0
    out = capsys.readouterr()
    assert "wrote mkb (ScaledSubCustom)" in out.out and "note: renamed ScaledSub -> ScaledSubCustom" in out.err
    assert main(["export", str(tmp_path / "o" / "answer.py"), "--format", "npukb", "--out", str(tmp_path / "o"),
                 "--name", "ScaledSub"]) == 0
    assert (tmp_path / "o" / "scaled_sub.md").read_text().startswith("================== op_host/scaled_sub_tiling.h")
    assert main(["export", str(tmp_path / "o" / "scaled_sub.md"), "--format", "cann", "--out", str(tmp_path / "c")]) == 0
    assert (tmp_path / "c" / "build.sh").stat().st_mode & 0o111
    assert load(tmp_path / "c").files == load(src).files
    launch = tmp_path / "launch"
    fx.launch_project().write(launch)
    assert main(["export", str(launch), "-f", "mkb-direct", "-o", str(tmp_path / "d.json")]) == 0
    assert json.loads((tmp_path / "d.json").read_text())["build"]["type"] == "ascendc_direct_launch"
    fx.asc_project().write(tmp_path / "asc")
    assert main(["export", str(tmp_path / "asc"), "-f", "akb", "-o", str(tmp_path / "akb")]) == 0
    assert sorted(p.name for p in (tmp_path / "akb").iterdir()) == ["custom_op.asc", "model_new.py"]


def test_export_bad_input_exits_2_with_a_message(tmp_path, capsys):
    assert main(["export", str(tmp_path / "missing"), "--format", "mkb", "--out", str(tmp_path / "x.py")]) == 2
    assert "no such file or directory" in capsys.readouterr().err
    src = fx.msopgen_dir(tmp_path / "scaled_sub")
    assert main(["export", str(src), "--format", "akb", "--out", str(tmp_path / "a")]) == 2
    err = capsys.readouterr().err
    assert "cannot export ScaledSub as akb: it is an msopgen operator" in err and "hint: use --format mkb" in err
    bad = tmp_path / "answer.py"
    bad.write_text('import os\nkernel_src = """x"""\nhost_tiling_src = ""\nproject_json_src = ""\n')
    assert main(["export", str(bad), "--format", "cann", "--out", str(tmp_path / "c")]) == 2
    assert "answer.py:1: an import is not allowed" in capsys.readouterr().err
    assert not (tmp_path / "c").exists()
    (tmp_path / "file").write_text("x")
    assert main(["export", str(src), "--format", "cann", "--out", str(tmp_path / "file")]) == 2
    assert "exists and is not a directory" in capsys.readouterr().err


def test_generate_glue_for_a_project_without_it(tmp_path, capsys):
    src = tmp_path / "bare"
    fx.msopgen_project().write(src)
    assert main(["export", str(src), "-f", "mkb", "-o", str(tmp_path / "a.py")]) == 2
    assert "--generate-glue" in capsys.readouterr().err
    assert main(["export", str(src), "-f", "mkb", "-o", str(tmp_path / "a.py"), "--generate-glue"]) == 0
    assert "generated default glue" in capsys.readouterr().err
    project = load(tmp_path / "a.py")
    bind, model = project.binding_sources()["bind/op.cpp"], project.model_source()
    assert "at::Tensor scaled_sub_impl_npu(const at::Tensor& x, const at::Tensor& y, double alpha)" in bind
    assert "EXEC_NPU_CMD(aclnnScaledSubCustom, x, y, alpha, z);" in bind and 'm.def("scaled_sub_custom"' in bind
    assert "def __init__(self, alpha=0.5):" in model and "custom_ops_lib.scaled_sub_custom(x, y, self.alpha)" in model
    ast.parse(model)
