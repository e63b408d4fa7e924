"""The bad-input table: every input here ends in one line on stderr and exit 2 from the CLI (no
traceback, no hang, nothing silently passing). Cases are cheap: each stops before any build."""
import os
from pathlib import Path

import numpy as np
import pytest

from kernelwright.agent.cli import main

ROOT = Path(__file__).resolve().parents[2]
TASK = ROOT / "evals" / "suite" / "activation" / "relu_ragged.py"
DSL = ROOT / "prompts" / "examples" / "elementwise" / "relu.dsl.py"
NPUKB_DOTDOT = ("================== op_host/../../x.cpp ==================\n```cpp\nint x;\n```\n"
                "================== op_kernel/relu.cpp ==================\n```cpp\nint y;\n```\n")


@pytest.fixture(scope="module")
def place(tmp_path_factory):
    d = tmp_path_factory.mktemp("bad")
    os.mkfifo(d / "fifo")
    (d / "afile").write_text("x")
    (d / "answer.txt").write_text(NPUKB_DOTDOT)
    (d / "kw.yaml").write_text("models:\n  default:\n    name: openai/gpt-4o\n    kwargs:\n      extra_headers:\n"
                               "        Authorization: Bearer sk-SECRET-123\n")
    assert main(["dsl", "lower", str(DSL), "--out", str(d / "proj")]) == 0
    return d


# (argv with {d} for the scratch dir, a phrase the one line must hold)
TABLE = {
    "build a FIFO": (["build", "{d}/fifo"], "FIFO"),
    "verify with a FIFO task": (["verify", "{d}/proj", "--task", "{d}/fifo"], "FIFO"),
    "dsl check a FIFO": (["dsl", "check", "{d}/fifo"], "FIFO"),
    "dsl check a directory": (["dsl", "check", "{d}"], "a directory"),
    "build /": (["build", "/"], "not a kernel project"),
    "npukb answer with op_host/..": (["build", "{d}/answer.txt"], "op_host/"),
    "dsl lower --out a file": (["dsl", "lower", str(DSL), "--out", "{d}/afile"], "not a directory"),
    "run --out a file": (["run", str(TASK), "--model", "builtin", "--out", "{d}/afile"], "not a directory"),
    "run --tolerance bogus": (["run", str(TASK), "--model", "builtin", "--tolerance", "bogus"], "bogus"),
    "run --soc bogus": (["run", str(TASK), "--model", "builtin", "--soc", "bogus"], "bogus"),
    "run --model replay:/missing": (["run", str(TASK), "--model", "replay:/missing"], "/missing"),
    "verify --trials 0": (["verify", "{d}/proj", "--task", str(TASK), "--trials", "0"], "trials 0"),
    "verify --budget -5": (["verify", "{d}/proj", "--task", str(TASK), "--budget", "-5"], "budget -5"),
    "verify --dtype bogus": (["verify", "{d}/proj", "--task", str(TASK), "--dtype", "bogus"], "'bogus'"),
    "config with a header credential": (["run", str(TASK), "--model", "builtin"], "Authorization"),
}


@pytest.mark.parametrize("name", sorted(TABLE))
def test_bad_input_is_one_line_and_exit_2(name, place, capsys, monkeypatch):
    argv, phrase = TABLE[name]
    monkeypatch.chdir(place)                     # `run` opens ./runs before it reads its flags
    if name.startswith("config"):
        monkeypatch.setenv("KERNELWRIGHT_CONFIG", str(place / "kw.yaml"))
    capsys.readouterr()
    assert main([a.replace("{d}", str(place)) for a in argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and phrase in err, err
    assert "Traceback" not in err and "SECRET" not in err


@pytest.mark.parametrize("block_dim,phrase", [
    ("cdiv(x, 2)", "cdiv() cannot take"), ("min()", "min() cannot take"), ("abs(x)", "abs() cannot take"),
    ("x + 1", "unsupported operand"), ("10**20", "1 to 65535 blocks"), ("-1", "1 to 65535 blocks"),
])
def test_bad_launch_expressions_are_a_named_problem(block_dim, phrase):
    from kernelwright.tools.project import LaunchArg, LaunchSpec
    from kernelwright.tools.referee.bind_launch import bind_launch
    from kernelwright.tools.referee.binding import TaskValue
    from kernelwright.tools.tasks.reference import RefValue

    spec = LaunchSpec(kernel="k", block_dim=block_dim, args=[LaunchArg(kind="input", name="x")])
    x = TaskValue("x", "input", 0, RefValue(kind="tensor", shape=[4], dtype="float32",
                                             array=np.zeros(4, np.float32)))
    bound = bind_launch(spec, [x], [], cores=48, ub_bytes=196608)
    assert bound.case is None and phrase in bound.problem, bound.problem
