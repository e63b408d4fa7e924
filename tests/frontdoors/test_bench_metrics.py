"""Bench metrics and reports without running anything: pass@k (the unbiased estimator) against known
values, the summary's rates per category and level, summary.json/csv fields, a self-contained
report.html, results.jsonl read back after a torn write, and the selection (--filter, --list)."""
from __future__ import annotations

import csv
import io
import json
import re
from math import comb, isclose

import numpy as np
import pytest

from kernelwright.evals.bench.metrics import ks_for, pass_at_k, summarize
from kernelwright.evals.bench.records import TaskRecord, append_record, read_records
from kernelwright.evals.bench.reports import text_summary, write_reports


@pytest.mark.parametrize("n,c,k,expected", [
    (10, 3, 1, 0.3),                    # pass@1 is the plain pass rate c/n
    (10, 3, 5, 1 - 21 / 252),           # 1 - C(7,5)/C(10,5)
    (10, 0, 5, 0.0),
    (10, 10, 1, 1.0),
    (4, 1, 2, 0.5),                     # 1 - C(3,2)/C(4,2)
    (5, 2, 4, 1.0),                     # fewer failures than k: some sample always passes
    (200, 13, 10, 1 - comb(187, 10) / comb(200, 10)),
])
def test_pass_at_k_known_values(n, c, k, expected):
    assert isclose(pass_at_k(n, c, k), expected, rel_tol=1e-12)


@pytest.mark.parametrize("n,c,k", [(20, 7, 1), (20, 7, 5), (20, 7, 10), (50, 1, 10), (7, 3, 7)])
def test_pass_at_k_matches_the_numerically_stable_form(n, c, k):
    """Chen et al. (2021): 1 - prod_{i=n-c+1}^{n} (1 - k/i)."""
    stable = 1.0 if n - c < k else 1.0 - float(np.prod(1.0 - k / np.arange(n - c + 1, n + 1)))
    assert isclose(pass_at_k(n, c, k), stable, rel_tol=1e-9)


def test_pass_at_k_needs_k_samples():
    with pytest.raises(ValueError, match="n=2"):
        pass_at_k(2, 1, 5)


def test_reported_ks():
    assert ks_for(1) == [1] and ks_for(4) == [1, 4] and ks_for(12) == [1, 5, 10, 12] and ks_for(0) == []


def _rec(task, attempt, correct, *, category="activation", level="level1", compiled=None, repairs=0, speedup=None,
         status=None, tokens=(0, 0), cost=0.0):
    return TaskRecord(task=task, attempt=attempt, category=category, level=level,
                      status=status or ("passed" if correct else "failed"), correct=correct,
                      compiled=correct if compiled is None else compiled, repairs=repairs, speedup=speedup,
                      prompt_tokens=tokens[0], completion_tokens=tokens[1], cost_usd=cost, reason="" if correct else
                      "verify: fail at compare: 1 of 4 runs differ\nsecond line")


@pytest.fixture
def records():
    """Two tasks x 4 tries: relu passes once (after one repair), softmax never (one try timed out)."""
    return ([_rec("relu", a, a == 2, repairs=1 if a == 2 else 0, speedup=2.0 if a == 2 else None, tokens=(100, 20),
                  cost=0.01) for a in range(4)]
            + [_rec("softmax", a, False, category="softmax", level="level2", compiled=a < 2,
                    status="timeout" if a == 3 else None, tokens=(50, 10), cost=0.005) for a in range(4)])


def test_summary_rates_pass_at_k_and_groups(records):
    s = summarize(records, suite="builtin", model="builtin", backend="sim", tolerance="default", attempts=4,
                  total_tasks=3)
    o = s.overall
    assert (o.tasks, o.runs) == (2, 8)
    assert o.compile_rate == 0.375 and o.correct_rate == 0.125     # 3 of 8 built, 1 of 8 passed
    assert o.pass_at_k == {"pass@1": 0.125, "pass@4": 0.5}        # mean over tasks of (1/4, 0) and (1, 0)
    assert o.pass_by_round == [0.0, 0.125]                         # the pass needed one repair round
    assert o.faster_rate == 0.125 and o.speedup_geomean == 2.0
    assert o.statuses == {"failed": 6, "passed": 1, "timeout": 1}
    assert (o.prompt_tokens, o.completion_tokens, o.cost_usd) == (600, 120, 0.06)
    assert set(s.by_category) == {"activation", "softmax"} and set(s.by_level) == {"level1", "level2"}
    assert s.by_category["activation"].pass_at_k == {"pass@1": 0.25, "pass@4": 1.0}
    assert s.finished_tasks == 2 and any("1 selected task(s) have no result yet" in n for n in s.notes)


def test_reports_files_and_fields(records, tmp_path):
    s = write_reports(tmp_path, records, suite="builtin", model="builtin", backend="sim", tolerance="default",
                      attempts=4, total_tasks=2)
    data = json.loads((tmp_path / "summary.json").read_text())
    for key in ("suite", "model", "backend", "tolerance", "attempts", "total_tasks", "finished_tasks", "overall",
                "by_category", "by_level", "notes"):
        assert key in data, key
    for key in ("compile_rate", "correct_rate", "faster_rate", "pass_at_k", "pass_by_round", "prompt_tokens",
                "completion_tokens", "cost_usd", "tasks", "runs", "statuses"):
        assert key in data["overall"], key
    rows = list(csv.DictReader((tmp_path / "summary.csv").open()))
    assert [(r["scope"], r["group"]) for r in rows] == [("all", "all"), ("category", "activation"),
                                                        ("category", "softmax"), ("level", "level1"), ("level", "level2")]
    for key in ("compile_rate", "correct_rate", "faster_rate", "pass@1", "pass@4", "pass_round_0", "pass_round_1",
                "prompt_tokens", "completion_tokens", "cost_usd"):
        assert key in rows[0], key
    assert float(rows[0]["pass@4"]) == 0.5 and float(rows[1]["correct_rate"]) == 0.25
    text = text_summary(s)
    assert "pass@4 50.0%" in text and "pass by repair round: 0: 0.0%, 1: 12.5%" in text


def test_report_html_is_self_contained_with_svg_plots(records, tmp_path):
    write_reports(tmp_path, records, suite="builtin <&>", model="builtin", backend="sim", tolerance="default",
                  attempts=4, total_tasks=2)
    html = (tmp_path / "report.html").read_text()
    assert html.startswith("<!DOCTYPE html>") and html.rstrip().endswith("</html>")
    assert html.count("<svg") == 4, "per-category bars, pass rate by repair round, speedup distribution, fast_p"
    for label in ("compile and correct rate per category", "pass rate by repair round", "speedup over eager (measured",
                  "fast_p over p (measured"):
        assert f"<title>{label}" in html
    # nothing fetched when opened offline: no scripts, stylesheets, images or links; the only URL is SVG's namespace
    assert not re.search(r"<script|<link|<img|<iframe|src=|href=|url\(|@import", html, re.I)
    assert set(re.findall(r"https?://[^\s\"'<>]+", html)) == {"http://www.w3.org/2000/svg"}
    assert "builtin &lt;&amp;&gt;" in html and "builtin <&>" not in html


def test_report_without_timings_says_so(tmp_path):
    write_reports(tmp_path, [_rec("relu", 0, True)], suite="s", model="m", backend="sim", tolerance="default",
                  attempts=1, total_tasks=1)
    html = (tmp_path / "report.html").read_text()
    assert html.count("<svg") == 2 and "No kernel was timed" in html
    assert json.loads((tmp_path / "summary.json").read_text())["overall"]["faster_rate"] is None


def test_estimated_speedups_give_est_faster_rate_and_fast_p(tmp_path):
    """On the sim backend speed-ups are the cost model's estimates: reported as such, never as measured."""
    recs = [_rec("relu", 0, True), _rec("gelu", 0, True), _rec("tanh", 0, True), _rec("exp", 0, False)]
    for r, est in zip(recs, (0.7, 1.2, 2.0, 5.0)):
        r.est_speedup = est if r.correct else None
    recs[0].est_at, recs[1].est_at, recs[2].est_at = "task", "task", "shrunk"
    s = write_reports(tmp_path, recs, suite="s", model="m", backend="sim", tolerance="default", attempts=1,
                      total_tasks=4)
    o = s.overall
    assert o.faster_rate is None and o.est_faster_rate == 0.5
    assert o.fast_p == {"fast_0.8": 0.5, "fast_1": 0.5, "fast_1.5": 0.25} and o.fast_p_source == "estimated"
    assert any("estimates of the cost model" in n and "2 of 3 at the task's own shapes" in n for n in s.notes)
    assert o.est_at_task_shapes == 2
    text = text_summary(s)
    assert "est. faster than eager 50.0%" in text and "fast_p (estimated): fast_0.8 50.0%" in text
    html = (tmp_path / "report.html").read_text()
    assert "<title>fast_p over p (estimated speed-ups)" in html and "speedup over eager (estimated" in html
    row = next(csv.DictReader((tmp_path / "summary.csv").open()))
    assert (row["est_faster_rate"], row["fast_1.5"], row["fast_p_source"]) == ("0.5", "0.25", "estimated")


def test_measured_speedups_win_over_estimates_for_fast_p():
    recs = [_rec("relu", 0, True, speedup=1.2), _rec("gelu", 0, True, speedup=0.5)]
    recs[1].est_speedup = 3.0
    o = summarize(recs, suite="s", model="m", backend="cann", tolerance="default", attempts=1, total_tasks=2).overall
    assert o.fast_p_source == "measured" and o.fast_p["fast_1"] == 0.5 and o.est_faster_rate == 0.5


def test_results_survive_a_torn_last_line(tmp_path):
    path = tmp_path / "results.jsonl"
    append_record(path, _rec("relu", 0, True))
    append_record(path, _rec("relu", 1, False))
    with path.open("a") as f:
        f.write('{"task": "softmax", "attempt": 0, "sta')          # killed mid-write
    assert [r.key for r in read_records(path)] == [("relu", 0), ("relu", 1)]
    append_record(path, _rec("softmax", 0, True))
    assert [r.key for r in read_records(path)] == [("relu", 0), ("relu", 1), ("softmax", 0)]


def test_list_and_filters(capsys):
    from kernelwright.agent.cli import main
    assert main(["bench", "builtin", "--filter", "category=softmax", "--filter", "level=1", "--list"]) == 0
    names = [line.split("\t")[0] for line in capsys.readouterr().out.splitlines()]
    assert names and all("softmax" in n for n in names)
    assert main(["bench", "builtin", "--filter", "name=relu_ragged,abs_scale_shift", "--list"]) == 0
    assert sorted(line.split("\t")[0] for line in capsys.readouterr().out.splitlines()) == ["abs_scale_shift",
                                                                                            "relu_ragged"]
    assert main(["bench", "builtin", "--filter", "colour=red", "--list"]) == 2
    assert "--filter 'colour=red': the key must be one of category, level, name" in capsys.readouterr().err
    assert main(["bench", "builtin", "--filter", "name=no_such_task*", "--list"]) == 2
    assert "no task of builtin matches" in capsys.readouterr().err


def test_builtin_suite_covers_the_categories():
    from kernelwright.evals.bench.suite import resolve_suite
    tasks = resolve_suite("builtin")
    cats = {t.category for t in tasks}
    assert len(tasks) >= 60
    assert cats >= {"activation", "math", "reduce", "normalization", "softmax", "loss", "optimizer", "pooling",
                    "broadcast", "index", "matmul", "convolution"}
    assert all(t.level for t in tasks)


def test_benchmark_trees_and_list_files(tmp_path, capsys):
    """SUITE as a KernelBench tree, a MultiKernelBench tree, or a list file naming trees, files and `builtin`."""
    from kernelwright.agent.cli import main
    from kernelwright.evals.bench.suite import SUITE_DIR
    source = (SUITE_DIR / "activation" / "relu_ragged.py").read_text()
    for rel in ("kb/KernelBench/level1/19_ReLU.py", "kb/KernelBench/level2/7_ReLU_twice.py",
                "mkb/reference/activation/relu.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(source)

    def listed(*args: str) -> list[list[str]]:
        assert main(["bench", *args, "--list"]) == 0
        return [line.split("\t")[:3] for line in capsys.readouterr().out.splitlines()]

    assert [row[2] for row in listed(str(tmp_path / "kb"))] == ["level1", "level2"]
    assert [row[2] for row in listed(str(tmp_path / "kb"), "--filter", "level=2")] == ["level2"]
    assert [row[1] for row in listed(str(tmp_path / "mkb"))] == ["activation"]
    listing = tmp_path / "mine.txt"
    listing.write_text("# a list file\nkb\nmkb/reference/activation/relu.py  # one file\nbuiltin\n")
    rows = listed(str(listing), "--filter", "name=*relu*")
    assert {"19_ReLU", "7_ReLU_twice", "relu", "relu_ragged"} <= {row[0] for row in rows}
    listing.write_text("kb\nmissing/tree\n")
    assert main(["bench", str(listing), "--list"]) == 2
    assert f"{listing}:2: missing/tree: no such file or directory" in capsys.readouterr().err


def test_progress_plain_lines_and_the_bar_on_a_tty():
    from kernelwright.evals.bench.progress import BarProgress, PlainProgress, make_progress
    stream = io.StringIO()
    p = PlainProgress(3, 1, stream=stream)
    p.started("relu#0")
    p.finished(_rec("relu", 0, True, repairs=1))
    p.finished(_rec("softmax", 1, False, status="timeout"))
    p.close()
    lines = stream.getvalue().splitlines()
    assert lines[0] == "bench: 3 run(s), 1 already finished, 2 to go"
    assert lines[1] == "[2/3] relu: passed in 0.0 s (compiled, 1 repair)"
    assert lines[2].startswith("[3/3] softmax (try 2): timeout in 0.0 s: verify: fail at compare")
    assert "second line" not in stream.getvalue() and "\x1b" not in stream.getvalue()
    assert isinstance(make_progress(1, 0, tty=False), PlainProgress)
    bar = make_progress(1, 0, tty=True)
    try:
        assert isinstance(bar, BarProgress)
    finally:
        bar.close()
