"""Text from kernels, compilers, models and tasks cannot drive the terminal: a kernel's stderr that
clears the screen and paints a green PASS over a FAIL is shown as visible escapes, on every way
the verdict reaches a person (referee report, chat view, CLI error line, bench progress)."""
import io

from kernelwright.agent.chat.view import View
from kernelwright.agent.cli import main
from kernelwright.evals.bench.progress import BarProgress, PlainProgress
from kernelwright.evals.bench.records import TaskRecord
from kernelwright.terminal_text import printable
from kernelwright.tools.referee.render import print_report
from kernelwright.tools.referee.verdict import CaseRun, Verdict

SPOOF = "boom\x1b[2J\x1b[H\x1b[32mPASS: all cases match\x1b[0m\r\x07\u202e\x9b"
CONTROL = ["\x1b", "\r", "\x07", "\u202e", "\x9b"]


def clean(text: str) -> bool:
    return not any(c in text for c in CONTROL)


def test_printable_keeps_text_and_layout_and_escapes_controls():
    assert printable("a\tb\nc é") == "a\tb\nc é"
    assert printable(SPOOF) == "boom\\x1b[2J\\x1b[H\\x1b[32mPASS: all cases match\\x1b[0m\\x0d\\x07\\u202e\\x9b"


def verdict() -> Verdict:
    run = CaseRun.model_validate({"case": "c0", "trial": 0, "seed": 1, "status": "fail", "reason": SPOOF})
    return Verdict(task="t" + SPOOF, op_type="Relu", project="p", backend="sim", tolerance="fp32", status="fail",
                   summary="kernel crashed: " + SPOOF, runs=[run])


def test_referee_report_escapes_kernel_output(capsys):
    print_report(verdict(), rich=False)
    plain = capsys.readouterr().out
    print_report(verdict(), rich=True)
    coloured = capsys.readouterr().out
    assert "boom" in plain and clean(plain)
    assert "\\x1b[2J" in coloured and "\x1b[2J" not in coloured and "\r" not in coloured


def test_chat_view_escapes_on_a_terminal():
    out = io.StringIO()
    view = View(tty=True, stream=out)
    view.say(SPOOF)
    view.code("int x; // " + SPOOF, "cpp", "kernel")
    view.verdict(verdict().model_dump() | {"stage": "run", "details": [SPOOF], "version": 1})
    text = out.getvalue()
    assert "\x1b[2J" not in text and "\x1b[H" not in text and "\r" not in text and "\u202e" not in text


def test_cli_error_line_escapes_the_value(capsys, tmp_path):
    assert main(["dsl", "check", str(tmp_path / ("missing" + SPOOF.replace("\x00", "") + ".dsl.py"))]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and clean(err)


def spoofed_records() -> list[TaskRecord]:
    return [TaskRecord(task="t" + SPOOF, status="failed", reason=SPOOF, node="10.0.0.2" + SPOOF),
            TaskRecord(task="[bold]u[/x]", status="passed", correct=True, node="[/node]" + SPOOF)]


def test_plain_bench_progress_escapes_tasks_reasons_nodes_and_notes():
    out = io.StringIO()
    progress = PlainProgress(2, 0, stream=out)
    progress.note("lost a try on " + SPOOF)
    for r in spoofed_records():
        progress.finished(r)
    progress.close()
    text = out.getvalue()
    assert clean(text) and "per node: 10.0.0.2boom\\x1b[2J" in text and "[bold]u[/x]" in text


def test_bar_bench_progress_escapes_and_reads_no_markup_from_names(capsys):
    progress = BarProgress(2, 0)
    progress.started("t" + SPOOF + "#0")
    progress.note("lost a try on " + SPOOF)
    for r in spoofed_records():
        progress.finished(r)
    progress.close()
    err = capsys.readouterr().err
    assert "\x1b[2J" not in err and "\u202e" not in err and "\x9b" not in err
    assert "boom\\x1b[2J" in err and "[/node]boom" in err and "[bold]u[/x]" in err   # names are not markup
