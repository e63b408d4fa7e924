"""`kernelwright run` and `kernelwright.generate`: the front door with no model configured."""
import json
import subprocess
import sys
from pathlib import Path

from kernelwright.agent.cli import main

HERE = Path(__file__).parent


def test_run_builtin_end_to_end_json(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("KERNELWRIGHT_MODEL", raising=False)
    code = main(["run", str(HERE / "tasks" / "abs_scale.py"), "--out", str(tmp_path / "out"), "--json"])
    captured = capsys.readouterr()
    result = json.loads(captured.out)
    assert code == 0 and result["status"] == "passed", captured.err
    assert result["path"] == ["planner", "dsl_writer", "lowerer", "verify", "finish"]
    assert Path(result["kernel"], "kernel.dsl.py").is_file() and Path(result["kernel"], "op_kernel").is_dir()
    assert "verify: pass" in captured.err                  # progress lines stream to stderr
    run = json.loads((tmp_path / "out" / "run.json").read_text())
    assert run["status"] == "passed" and run["plan"]["category"] == "elementwise"
    assert (tmp_path / "runs" / "checkpoints.sqlite").is_file()


def test_run_says_what_the_builtin_writer_cannot_do(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("KERNELWRIGHT_MODEL", raising=False)
    task = tmp_path / "mm.py"
    task.write_text("import torch\nclass Model(torch.nn.Module):\n    def forward(self, a, b):\n        return torch.linalg.inv(a @ b)\n"
                    "def get_inputs():\n    return [torch.randn(4, 8), torch.randn(8, 4)]\n"
                    "def get_init_inputs():\n    return []\n")
    assert main(["run", str(task), "--model", "builtin"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("FAILED: the builtin writer cannot handle linalg_inv (in mm)") and "--model NAME" in out


def test_run_bad_input(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["run", str(tmp_path / "missing.py")]) == 2
    assert main(["run", "--resume", "no-such-run"]) == 2
    assert "no checkpoint for run 'no-such-run'" in capsys.readouterr().err
    bad = tmp_path / "bad.yaml"
    bad.write_text("agent: {caps: {debuger: 2}}\n")
    assert main(["run", str(HERE / "tasks" / "abs_scale.py"), "--config", str(bad)]) == 2
    assert "bad configuration" in capsys.readouterr().err


def test_generate_is_a_lazy_attribute_of_the_package():
    code = ("import sys, kernelwright; assert 'langgraph' not in sys.modules; "
            "from kernelwright.agent.api import generate; assert kernelwright.generate is generate; print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "ok", out.stderr


def test_bad_settings_stop_before_any_work_with_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    task = str(HERE / "tasks" / "abs_scale.py")
    for flag, value, why in (("--soc", "Bogus", "toolchain.soc: unknown SoC 'Bogus'"),
                             ("--tolerance", "bogus", "toolchain.tolerance: unknown tolerance preset 'bogus'"),
                             ("--backend", "bogus", "toolchain.backend: Input should be 'sim', 'cann' or 'cann-syntax'"),
                             ("--set", "agent.caps.planner=0", "agent.caps.planner: Input should be greater than")):
        assert main(["run", task, flag, value]) == 2
        out, err = capsys.readouterr()
        assert out == "" and err.count("\n") == 1 and err.startswith("kernelwright run: bad configuration: "), err
        assert why in err, err
    assert main(["run", task, "--model", f"replay:{tmp_path / 'none.jsonl'}", "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "none.jsonl: no such transcript file" in err and not (tmp_path / "r").exists()
    assert not (tmp_path / "runs" / "abs_scale").exists()          # nothing ran
    assert main(["bench", "builtin", "--soc", "bogus", "--out", str(tmp_path / "b")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "toolchain.soc: unknown SoC 'bogus'" in err and not (tmp_path / "b").exists()


def test_a_bad_setting_is_one_line_from_the_installed_command_too(tmp_path):
    out = subprocess.run([sys.executable, "-m", "kernelwright.agent.cli", "run", str(HERE / "tasks" / "abs_scale.py"),
                          "--soc", "Bogus"], capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 2 and out.stdout == "" and out.stderr.count("\n") == 1, out.stderr
    assert "Traceback" not in out.stderr and "unknown SoC 'Bogus'" in out.stderr


def test_resume_refuses_a_setting_flag_unless_the_change_is_named(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["run", "--resume", "some-run", "--model", "openai/o3"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--model would change them midway: name the change with --set" in err, err
    assert main(["chat", "--resume", "some-run", "--backend", "cann", "--home", str(tmp_path / "chat")]) == 2
    assert "kernelwright chat: --resume continues run some-run" in capsys.readouterr().err
    assert main(["run", "--resume", "some-run", "--set", "model=openai/o3"]) == 2   # named: it gets to the checkpoint
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no checkpoint for run 'some-run'" in err, err
