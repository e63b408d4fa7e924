"""`out` is the host's: a tool call that carries it (as a model's can) cannot make the LangChain
tools write outside the host's runs root, by an absolute path, `..`, or a symlink inside the root."""
from pathlib import Path

import pytest

from kernelwright.agent.plugins.langchain_tools import kernelwright_tools

DSL = (Path(__file__).resolve().parents[2] / "prompts" / "examples" / "elementwise" / "relu.dsl.py").read_text()


@pytest.mark.parametrize("where", ["absolute", "dotdot", "symlink", "relative to the working directory"])
def test_lower_dsl_out_cannot_leave_the_runs_root(tmp_path, where):
    runs, outside = tmp_path / "runs", tmp_path / "outside"
    runs.mkdir()
    outside.mkdir()
    (runs / "link").symlink_to(outside)
    out = {"absolute": str(outside / "p"), "dotdot": str(runs / ".." / "outside" / "p"),
           "symlink": str(runs / "link" / "p"),
           "relative to the working directory": "p"}[where]
    lower = {t.name: t for t in kernelwright_tools(runs=runs)}["lower_dsl"]
    msg = lower.invoke({"name": "lower_dsl", "id": "x", "type": "tool_call", "args": {"dsl": DSL, "out": out}})
    assert msg.status == "error" and "write only inside" in msg.content
    assert list(outside.iterdir()) == []


def test_lower_dsl_out_inside_the_root_is_written_there(tmp_path):
    lower = {t.name: t for t in kernelwright_tools(runs=tmp_path)}["lower_dsl"]
    msg = lower.invoke({"name": "lower_dsl", "id": "x", "type": "tool_call",
                        "args": {"dsl": DSL, "out": str(tmp_path / "p")}})
    assert msg.status != "error" and msg.artifact.project_dir == str((tmp_path / "p").resolve())


def test_an_os_error_on_a_named_path_comes_back_to_the_model(tmp_path, monkeypatch):
    from kernelwright.agent.plugins import ops

    def broken(inp, **kwargs):
        raise IsADirectoryError(21, "Is a directory", str(tmp_path))
    monkeypatch.setattr(ops, "verify_kernel", broken)
    verify = {t.name: t for t in kernelwright_tools(runs=tmp_path)}["verify_kernel"]
    msg = verify.invoke({"name": "verify_kernel", "id": "v", "type": "tool_call",
                         "args": {"project": str(tmp_path), "task": str(tmp_path)}})
    assert msg.status == "error" and "Is a directory" in msg.content
