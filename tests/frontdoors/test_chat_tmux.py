"""`kernelwright chat` on a real terminal (tmux: send-keys, capture-pane), with a replayed model
through the ChatModel seam: point to a reference file; plan, DSL (highlighted), AscendC and the
verdict appear; at the review points retry the plan and hint at the DSL (the replay checks each
answer reached the model); /save, the terminal killed, a new terminal /resume's the session at its
review point; that terminal killed while the referee runs, a third /resume's it from its checkpoint
and finishes it; /export, /help."""
from __future__ import annotations

import json
import os
import re
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from frontdoor_env import KERNELWRIGHT, NO_RETRIEVAL, RELU, ROOT, TRANSCRIPTS, child_env  # noqa: E402
from tmux_driver import Tmux  # noqa: E402

pytestmark = pytest.mark.skipif(not Tmux.available(), reason="tmux is not installed (apt-get install -y tmux; the "
                                                              "README's set-up command installs it)")
HINT = "keep tiles at most 4096 elements"
PROMPT = r"(?m)^{}> *$"                 # prompt-toolkit's prompt, waiting on an empty line


def _chat(home: Path) -> list[str]:
    return ["env", "TERM=xterm-256color", str(KERNELWRIGHT), "chat", "--model",
            f"replay:{TRANSCRIPTS / 'chat_review.jsonl'}", "--config", str(NO_RETRIEVAL), "--home", str(home)]


def _sessions(home: Path) -> list[dict]:
    return list(json.loads((home / "sessions.json").read_text()).values())


@pytest.fixture(scope="module")
def chat(tmp_path_factory):
    root = tmp_path_factory.mktemp("tmux")
    home = root / "chat-home"
    tmux = Tmux(root, child_env())
    seen: dict = {"home": home}
    try:
        # first terminal: start, retry the plan, approve it, hint at the DSL, save; then the terminal is killed
        tmux.start("one", _chat(home), ROOT)
        tmux.wait_for("one", PROMPT.format("kernelwright"), timeout=60)
        tmux.send("one", str(RELU))
        tmux.wait_for("one", PROMPT.format("plan"))
        tmux.send("one", "r")
        seen["retried"] = tmux.wait_for("one", r"review: plan", count=2)
        tmux.wait_for("one", PROMPT.format("plan"))
        tmux.send("one", "a")
        tmux.wait_for("one", PROMPT.format("dsl"))
        tmux.send("one", f"h {HINT}")
        tmux.wait_for("one", r"review: dsl", count=2)
        tmux.wait_for("one", PROMPT.format("dsl"))
        tmux.send("one", "/save relu-under-review")
        seen["one"] = tmux.wait_for("one", r"saved session .* as 'relu-under-review'")
        seen["one_colours"] = tmux.capture("one", escapes=True)
        pid = tmux.pid("one")
        tmux.kill_session("one")
        deadline = time.monotonic() + 10
        while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        seen["one_pid_gone"] = not Path(f"/proc/{pid}").exists()
        seen["after_kill"] = _sessions(home)
        # a new terminal: /resume by id at the DSL review, approve; the terminal is killed while the kernel is checked
        sid = seen["after_kill"][0]["id"]
        tmux.start("two", _chat(home), ROOT)
        tmux.wait_for("two", PROMPT.format("kernelwright"), timeout=60)
        tmux.send("two", f"/resume {sid}")
        tmux.wait_for("two", PROMPT.format("dsl"))
        tmux.send("two", "a")
        seen["two"] = tmux.wait_for("two", r"class KernelReluRagged")      # AscendC on screen, the referee at work
        seen["two_colours"] = tmux.capture("two", escapes=True)
        pid = tmux.pid("two")
        tmux.kill_session("two")
        deadline = time.monotonic() + 10
        while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        seen["mid_run"] = _sessions(home)
        # a third terminal: /resume continues from the last checkpoint; accept, export, help, quit
        tmux.start("three", _chat(home), ROOT)
        tmux.wait_for("three", PROMPT.format("kernelwright"), timeout=60)
        tmux.send("three", f"/resume {sid}")
        tmux.wait_for("three", PROMPT.format("accept"))
        tmux.send("three", "a")
        tmux.wait_for("three", r"PASSED: ")
        tmux.wait_for("three", PROMPT.format("kernelwright"))        # the first one holds the /resume line
        tmux.send("three", "/export cann")
        tmux.wait_for("three", r"wrote cann")
        tmux.send("three", "/help")
        tmux.wait_for("three", r"/resume ID\|NAME")
        seen["three"] = tmux.capture("three")
        tmux.send("three", "/quit")
        deadline = time.monotonic() + 20
        while tmux.alive("three") and time.monotonic() < deadline:
            time.sleep(0.2)
        seen["three_quit"] = not tmux.alive("three")
        seen["final"] = _sessions(home)
    finally:
        tmux.kill_server()
    return seen


def test_plan_dsl_ascendc_and_verdict_appear(chat):
    one, two, three = chat["one"], chat["two"], chat["three"]
    assert "session relu_ragged-" in one and "planner: plan for a elementwise kernel" in one
    assert '"category": "elementwise"' in one                      # the plan shown at its review
    assert "DSL v1" in one and "A.Relu(w0, w0, n)" in one
    assert "lowerer: project v1" in two and "AscendC op_kernel/relu_ragged.cpp" in two
    assert "verify: pass" in three and re.search(r"verdict v1", three) and "PASSED: 4 run(s) passed" in three


def test_terminal_output_is_highlighted(chat):
    """On a terminal the code is syntax-highlighted: coloured escapes on the DSL and kernel lines."""
    def line_of(screen: str, text: str) -> str:
        return next(line for line in screen.splitlines() if text in re.sub(r"\x1b\[[0-9;:]*m", "", line))
    for screen, text in ((chat["one_colours"], "A.Relu(w0, w0, n)"), (chat["two_colours"], "class KernelReluRagged")):
        line = line_of(screen, text)
        assert text not in line and re.search(r"\x1b\[[0-9;:]*m", line), repr(line)    # split by colour changes


def test_retry_and_hint_reach_the_model(chat):
    """The replay transcript `expect`s the retry text at the second planner call and the hint at the second
    DSL call; a lost answer would have stopped the run with TranscriptDiverged."""
    assert chat["retried"].count("planner: plan for") == 2
    assert "review_plan: done" in chat["one"]
    assert re.findall(r"dsl_writer: DSL (v\d+) check passed", chat["one"]) == ["v1", "v2"]
    assert "TranscriptDiverged" not in chat["one"] and "the run stopped" not in chat["one"]


def test_session_survives_the_killed_terminal(chat):
    assert chat["one_pid_gone"], "the chat outlived its terminal"
    (s,) = chat["after_kill"]
    assert (s["name"], s["status"], s["waiting_at"]) == ("relu-under-review", "waiting", "dsl")
    assert s["pending"]["kind"] == "dsl" and "A.Relu" in s["pending"]["dsl"]
    assert f"session {s['id']}: relu_ragged (waiting at the dsl review)" in chat["two"]
    (final,) = chat["final"]
    assert final["id"] == s["id"] and final["status"] == "passed" and final["pending"] is None


def test_session_killed_mid_run_continues_from_its_checkpoint(chat):
    """Killed while the referee ran (or, on a fast machine, just after it stopped at the accept review)."""
    (mid,) = chat["mid_run"]
    assert mid["status"] in ("running", "waiting"), mid
    expected = "(running)" if mid["status"] == "running" else "(waiting at the accept review)"
    assert f"session {mid['id']}: relu_ragged {expected}" in chat["three"]
    assert "TranscriptDiverged" not in chat["three"] and "the run stopped" not in chat["three"]


def test_export_and_help(chat):
    three = chat["three"]
    (s,) = chat["final"]
    exported = Path(s["artifacts"]) / "export" / "cann"
    assert "wrote cann" in three and exported.is_dir() and any(exported.iterdir())
    for line in ("/save [NAME]", "/resume ID|NAME", "/sessions", "/export FORMAT [PATH]", "/help", "/quit"):
        assert line in three
    assert chat["three_quit"], "/quit did not end the session"
    history = (chat["home"] / "history").read_text()       # the line editor's history, kept across terminals
    assert "/save relu-under-review" in history and "/export cann" in history
