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


def _verdict(art, at, speedup, shrunk):
    """A verdict whose measure stage estimated at the task's shapes (at='task') with the shrunk estimate beside."""
    main = {"speedup": speedup, "device_us": 100.0, "launch_us": 19.0, "eager_us": 119.0 * speedup, "eager_kernels": 1}
    speed = {"kind": "estimate", "soc": "S", "at": at, "shapes": "x", "per_soc": {"S": main}}
    if at == "task":
        speed["shrunk"] = {"shapes": "shrunk shapes (dims 8->2)", "per_soc": {"S": {"speedup": shrunk}}}
    (art / "verdicts").mkdir()
    (art / "verdicts" / "v1.json").write_text(json.dumps({"stages": [{"name": "measure", "metrics": {"speed": speed}}]}))


def test_the_headline_is_at_the_task_shapes_with_the_shrunk_estimate_beside(tmp_path):
    recs = [_run(tmp_path, "relu", "activation", True, 0.7, 0.7), _run(tmp_path, "mse_loss", "loss", True, 3.0, 3.0)]
    _verdict(tmp_path / "runs" / "relu", "task", 0.7, 1.0)
    _verdict(tmp_path / "runs" / "mse_loss", "shrunk", 3.0, None)
    (tmp_path / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    s = tabulate(tmp_path, total=2)
    by = {r["task"]: r for r in s["tasks"]}
    assert (by["relu"]["at"], by["relu"]["shrunk"]) == ("task", 1.0)
    assert (by["mse_loss"]["at"], by["mse_loss"]["shrunk"]) == ("shrunk", 3.0)   # only the shrunk one: it stands
    assert s["at_task_shapes"] == 1 and s["after_shrunk"]["at_least_1"] == 1.0
    assert s["after_task_shapes_only"]["at_least_0.8"] == 0.0                     # relu 0.7 at its own shapes
    assert "estimated at the task's own shapes: 1" in markdown(s)
