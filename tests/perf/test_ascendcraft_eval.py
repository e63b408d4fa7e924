"""The AscendCraft-subset eval's tables from a bench output (no bench run): before/after shares over all
52 selected tasks, a failed task below every threshold, ties at the HBM floor counted as 1.0x."""
from __future__ import annotations

import json

from kernelwright.evals.ascendcraft_speed import CATEGORIES, markdown, tabulate


def _run(tmp_path, name, category, correct, before=None, after=None):
    art = tmp_path / "runs" / name
    art.mkdir(parents=True)
    perf = {"before": {"speedup": before, "kernel_us": 20.0}, "after": {"speedup": after, "kernel_us": 19.0},
            "kept": "original", "candidates": []} if before is not None else None
    (art / "run.json").write_text(json.dumps({"perf": perf}))
    return {"task": name, "category": category, "status": "passed" if correct else "failed", "correct": correct,
            "est_speedup": after, "artifacts": str(art), "reason": "" if correct else "verify: fail at compare\nmore"}


def test_tables_count_every_selected_task(tmp_path):
    recs = [_run(tmp_path, "relu", "activation", True, 0.9999996, 0.9999996),
            _run(tmp_path, "swish", "activation", True, 0.7, 0.85),
            _run(tmp_path, "mse_loss", "loss", True, 3.0, 3.2),
            _run(tmp_path, "cumprod", "math", False)]
    (tmp_path / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    s = tabulate(tmp_path, total=4)
    assert s["before"]["at_least_1"] == 0.5 and s["after"]["at_least_1"] == 0.5      # the tie counts
    assert s["before"]["at_least_0.8"] == 0.5 and s["after"]["at_least_0.8"] == 0.75
    assert s["by_category"]["activation"]["after"]["at_least_0.8"] == 1.0 and s["correct"] == 3
    text = markdown(s)
    assert "| after the phase | 75.0 % | 50.0 % |" in text and "verify: fail at compare |" in text
    assert len(CATEGORIES) == 7


def test_carried_rows_fill_in_for_tasks_this_run_did_not_run(tmp_path):
    old, new = tmp_path / "old", tmp_path / "new"
    old_recs = [_run(old, "relu", "activation", True, 1.0, 1.0), _run(old, "max_pooling_2d", "pooling", True, 0.03, 0.03)]
    (old / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in old_recs))
    new_recs = [_run(new, "max_pooling_2d", "pooling", True, 0.9, 0.95)]
    (new / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in new_recs))
    s = tabulate(new, total=2, carry=[old / "results.jsonl"])
    by = {r["task"]: r for r in s["tasks"]}
    assert by["max_pooling_2d"]["after"] == 0.95 and by["max_pooling_2d"]["origin"] == "this run"   # this run wins
    assert by["relu"]["origin"].startswith("carried from") and s["carried"] == 1 and s["phase_on"] == 2
    assert "1 rows carried from older runs" in markdown(s)
