"""`kernelwright chat` without a terminal (stdin piped, stdout captured): plain lines with no escape
codes even under FORCE_COLOR, the whole run (plan, DSL, an edit in $EDITOR, AscendC, verdict, a kernel edit at accept),
/save, /export to two formats, /sessions; and the session's answers in-process with a scripted
reader: descriptions (with and without a model), bad paths, unknown commands and answers."""
from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from frontdoor_env import ESCAPES, KERNELWRIGHT, NO_RETRIEVAL, RELU, ROOT, TRANSCRIPTS, child_env  # noqa: E402


@pytest.fixture(scope="module")
def piped(tmp_path_factory):
    root = tmp_path_factory.mktemp("chat-plain")
    home = root / "home"
    editor = root / "editor.sh"        # $EDITOR: widens the DSL's blocks, marks the kernel's Relu line
    editor.write_text('#!/bin/sh\ncase "$1" in\n  *.cpp) sed -i "s|Relu(w0, w0, n);|Relu(w0, w0, n);  // by hand|" "$1" ;;\n'
                      '  *) sed -i s/2048/4096/g "$1" ;;\nesac\n')
    editor.chmod(0o755)
    script = [str(RELU), "/save piped", "a", "e", "a", "k", "a", "/export mkb", f"/export npukb {root / 'npukb'}",
              "/sessions", "/quit"]
    done = subprocess.run([str(KERNELWRIGHT), "chat", "--model", f"replay:{TRANSCRIPTS / 'relu_ragged.jsonl'}",
                           "--config", str(NO_RETRIEVAL), "--home", str(home)], input="\n".join(script) + "\n",
                          capture_output=True, text=True, cwd=ROOT, timeout=400,
                          env=child_env(FORCE_COLOR="1", TERM="xterm-256color", EDITOR=str(editor)))
    return done, home, root


def test_piped_session_is_plain_text(piped):
    done, _, _ = piped
    assert done.returncode == 0, done.stderr[-3000:]
    assert not any(e in done.stdout + done.stderr for e in ESCAPES), "escape codes without a terminal"
    assert "kernelwright> " + str(RELU) in done.stdout, "piped input is echoed, so the transcript reads like a session"


def test_piped_session_shows_each_step_in_order(piped):
    out = piped[0].stdout
    steps = ["planner: plan for a elementwise kernel", "--- review: plan ---", "dsl_writer: DSL v1 check passed",
             "--- DSL v1 ---", "--- review: dsl ---", "dsl_writer: DSL v2 check passed", "lowerer: project v1",
             "--- AscendC op_kernel/relu_ragged.cpp", "verify: pass", "--- review: accept ---", "PASSED: 4 run(s) passed"]
    at = [out.find(s) for s in steps]
    assert -1 not in at and at == sorted(at), list(zip(steps, at))


def test_edit_in_editor_is_checked_and_kept(piped):
    _, home, _ = piped
    (s,) = json.loads((home / "sessions.json").read_text()).values()
    dsl = (Path(s["artifacts"]) / "kernel" / "kernel.dsl.py").read_text()
    assert "4096" in dsl and "2048" not in dsl, "the DSL edited in $EDITOR is the one lowered"


def test_kernel_edit_at_accept_is_verified_and_exported(piped):
    done, home, _ = piped
    (s,) = json.loads((home / "sessions.json").read_text()).values()
    edited = Path(s["artifacts"]) / "edited"
    assert "// by hand" in (edited / "op_kernel" / "relu_ragged.cpp").read_text()
    assert "verifying the edited kernel (op_kernel/relu_ragged.cpp) ..." in done.stdout
    assert f"kept in {edited}" in done.stdout and "wrote mkb (ReluRaggedCustom) from edited/" in done.stdout
    assert "// by hand" in (Path(s["artifacts"]) / "export" / "mkb" / "relu_ragged_custom.py").read_text()
    assert "// by hand" not in (Path(s["artifacts"]) / "kernel" / "op_kernel" / "relu_ragged.cpp").read_text()


def test_save_export_sessions(piped):
    done, home, root = piped
    (s,) = json.loads((home / "sessions.json").read_text()).values()
    assert s["name"] == "piped" and s["status"] == "passed"
    assert "saved session " + s["id"] + " as 'piped'" in done.stdout
    assert (Path(s["artifacts"]) / "export" / "mkb" / "relu_ragged_custom.py").is_file()
    assert "wrote npukb" in done.stdout and "class KernelReluRagged" in (root / "npukb").read_text()
    assert f"{s['id']}  piped  relu_ragged  passed" in done.stdout
    assert done.stdout.rstrip().endswith("bye")


class Reader:
    """Answers a ChatApp's prompts from a list (None: end of input)."""

    def __init__(self, lines):
        self.lines, self.prompts = list(lines), []

    def read(self, prompt):
        self.prompts.append(prompt)
        return self.lines.pop(0) if self.lines else None


def run_app(home: Path, lines: list[str], model: str = "builtin") -> tuple[str, Reader]:
    from kernelwright.agent.chat.app import ChatApp
    from kernelwright.agent.chat.view import View
    from kernelwright.agent.config import load_config
    cfg = load_config(env={}, overrides={"models.default.name": model, "retriever.enabled": False,
                                         "paths.runs": str(home / "runs")})
    stream, reader = io.StringIO(), Reader(lines)
    assert ChatApp(cfg, home=home, interrupts=["plan"], view=View(tty=False, stream=stream), reader=reader).loop() == 0
    return stream.getvalue(), reader


def test_words_without_a_model_ask_for_a_reference_file(tmp_path):
    out, _ = run_app(tmp_path, ["relu over rows of 1001 floats"])
    assert "'relu over rows of 1001 floats' is not a file" in out and "needs a model" in out
    assert "--model NAME or $KERNELWRIGHT_MODEL" in out


def test_words_with_a_model_draft_a_reference(tmp_path):
    reference = (ROOT / "evals" / "suite" / "activation" / "relu_ragged.py").read_text()
    transcript = tmp_path / "draft.jsonl"
    transcript.write_text(json.dumps({"node": "planner", "expect": ["relu over rows"],
                                      "reply": f"```python\n{reference}```"}) + "\n")
    out, reader = run_app(tmp_path / "home", ["relu over rows of 1001 floats", "n"], model=f"replay:{transcript}")
    draft = tmp_path / "home" / "drafts" / "relu_over_rows_of_1001.py"
    assert draft.read_text() == reference and f"kept in {draft}" in out
    assert "Use this reference? [y]es / [n]o: " in reader.prompts and "drafted reference" in out


def test_bad_input_is_answered_and_the_session_goes_on(tmp_path):
    not_a_task = tmp_path / "notes.py"
    not_a_task.write_text("x = 1\n")
    out, reader = run_app(tmp_path / "home", [str(not_a_task), "/frobnicate", "/export mkb", "/export tgz",
                                              "/resume nobody", "/save", "/sessions", "/quit"])
    assert "not a KernelBench-style task" in out
    assert "unknown command /frobnicate; /help lists them" in out
    assert "no session yet: start or /resume one" in out
    assert "/export FORMAT [PATH] with FORMAT one of mkb, mkb-direct, npukb, akb, cann" in out
    assert "no session 'nobody'; /sessions lists them" in out
    assert "nothing to save yet" in out and "no saved sessions" in out
    assert reader.prompts == ["kernelwright> "] * 8


def test_unknown_review_point_is_refused(capsys):
    from kernelwright.agent.cli import main
    assert main(["chat", "--review", "plan,lunch", "--plain"]) == 2
    assert "unknown review point(s) lunch; choose among plan, dsl, accept" in capsys.readouterr().err


def test_plain_kernelwright_is_the_chat(tmp_path, monkeypatch, capsys):
    from kernelwright.agent.cli import main
    monkeypatch.setenv("KERNELWRIGHT_HOME", str(tmp_path))
    monkeypatch.delenv("KERNELWRIGHT_MODEL", raising=False)
    monkeypatch.setattr(sys, "stdin", io.StringIO("/help\n/quit\n"))
    assert main([]) == 0
    out = capsys.readouterr().out
    assert out.startswith("kernelwright chat (model builtin, backend sim, review at plan, dsl, accept)")
    assert "kernelwright> /help\n" in out and "/resume ID|NAME" in out and out.rstrip().endswith("bye")
    assert (tmp_path / "chat").is_dir()
