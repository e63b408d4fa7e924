"""`kernelwright dsl check FILE [--task T]` and `kernelwright dsl lower FILE --out DIR`: exit 0 when
clean, 1 with findings, 2 on bad input; messages point at the DSL line."""
import json

from kernelwright.agent.cli import main
from kernelwright.tools.dsl.examples import ROOT

RELU = ROOT / "elementwise" / "relu.dsl.py"


def test_check_without_a_task_applies_the_static_rules(capsys):
    assert main(["dsl", "check", str(RELU)]) == 0
    assert "ok: 0 error(s)" in capsys.readouterr().out


def test_check_against_a_task_interprets_every_case(capsys):
    assert main(["dsl", "check", str(RELU), "--task", str(ROOT / "elementwise" / "relu.py"), "--dtype", "float32",
                 "--dtype", "float16"]) == 0
    out = capsys.readouterr().out
    assert out.count(": pass") == 8 and "8/8 case(s) match the reference" in out


def test_findings_exit_1_with_the_line(tmp_path, capsys):
    bad = tmp_path / "bad.dsl.py"
    bad.write_text(RELU.read_text().replace("A.Relu(v, v, n)", "A.Relu(v, v, n + 8)"))
    assert main(["dsl", "check", str(bad), "--task", str(ROOT / "elementwise" / "relu.py")]) == 1
    out = capsys.readouterr().out
    line = next(i for i, t in enumerate(bad.read_text().splitlines(), 1) if "n + 8" in t)
    assert f"[ub.uninit] at line {line}" in out or f"[ub.bounds] at line {line}" in out
    assert "FAILED" in out and "/work/" not in out.replace(str(tmp_path), "")
    syntax = tmp_path / "syntax.dsl.py"
    syntax.write_text("import adsl as A\ndef f(:\n")
    assert main(["dsl", "check", str(syntax), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is False and report["diagnostics"][0]["rule"] == "syntax" and report["diagnostics"][0]["line"] == 2


def test_bad_input_exits_2(tmp_path, capsys):
    assert main(["dsl", "check", str(tmp_path / "missing.dsl.py")]) == 2
    assert main(["dsl", "check", str(RELU), "--task", str(tmp_path / "no_task.py")]) == 2
    assert main(["dsl", "check", str(RELU), "--soc", "Ascend000"]) == 2
    assert "kernelwright dsl:" in capsys.readouterr().err


def test_lower_writes_the_msopgen_project(tmp_path, capsys):
    out = tmp_path / "proj"
    assert main(["dsl", "lower", str(RELU), "--out", str(out), "--name", "ReluCustom"]) == 0
    assert (out / "op_host" / "relu_custom_tiling.h").is_file() and (out / "op_kernel" / "relu_custom.cpp").is_file()
    assert "wrote ReluCustom" in capsys.readouterr().out
    from kernelwright.tools.project import KernelProject
    project = KernelProject.from_path(out)
    assert project.kind == "msopgen" and project.name == "ReluCustom"
    bad = tmp_path / "bad.dsl.py"
    bad.write_text(RELU.read_text().replace("    v = A.ub(A.f32, t.tile)\n", ""))
    assert main(["dsl", "lower", str(bad), "--out", str(tmp_path / "no")]) == 1
    assert not (tmp_path / "no").exists()
