"""`kernelwright verify`: exit 0 when the kernel passes, 1 when it fails, 2 on bad input (with a
message naming what is wrong); --json prints the Verdict."""
import json
from pathlib import Path

import pytest

from kernelwright.agent.cli import main
from kernelwright.tools.project import KernelProject
from kernelwright.tools.referee import Verdict

HERE = Path(__file__).parent
FIX = HERE / "fixtures"
TASK = str(FIX / "tasks/add_scale.py")
KL = FIX / "scale_add_kl"


def test_pass_and_json(capsys):
    rc = main(["verify", str(KL / "scale_add_kl.cpp"), "--launch", str(KL / "launch.json"), "--task", TASK,
               "--trials", "1", "--json"])
    v = Verdict.model_validate_json(capsys.readouterr().out)
    assert rc == 0 and v.status == "pass" and v.tolerance == "default"


def test_failing_kernel_exits_1_with_a_staged_report(capsys, tmp_path):
    spec = json.loads((HERE / "corpus/half_working/mutates_input.json").read_text())
    project = KernelProject.from_path(FIX / "add_scale")
    edit = spec["edits"][0]
    project.files[edit["file"]] = project.files[edit["file"]].replace(edit["find"], edit["replace"])
    project.write(tmp_path / "bad")
    rc = main(["verify", str(tmp_path / "bad"), "--task", TASK, "--trials", "1", "--tolerance", "mkb"])
    out = capsys.readouterr().out
    assert rc == 1
    assert "compare  fail" in out and "[input_mutated]" in out and out.strip().splitlines()[-1].startswith("FAIL:")


@pytest.mark.parametrize("argv,message", [
    (["--tolerance", "strict"], "unknown tolerance preset 'strict'; known: akb, default"),
    (["--task", "nowhere.py"], "nowhere.py: no such file or directory"),
    (["--launch", "missing.json"], "--launch missing.json: not a launch spec"),
    (["--soc", "Ascend999"], "unknown SoC 'Ascend999'"),
])
def test_bad_input_exits_2_naming_the_problem(capsys, argv, message):
    base = ["verify", str(KL / "scale_add_kl.cpp"), "--task", TASK]
    args = base + argv if argv[0] != "--task" else ["verify", str(KL / "scale_add_kl.cpp")] + argv
    assert main(args) == 2
    assert message in capsys.readouterr().err


def test_unjudgeable_case_exits_2(capsys):
    rc = main(["verify", str(KL / "scale_add_kl.cpp"), "--task", TASK, "--trials", "1"])
    assert rc == 2 and "needs a launch spec" in capsys.readouterr().err


def test_help_does_not_import_torch():
    import subprocess
    import sys
    code = "import sys; from kernelwright.agent.cli import make_parser; make_parser(); print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
