"""A task's trace is kept by content: traced once, read back while nothing it depends on changed."""
from __future__ import annotations

import shutil

import pytest

from kernelwright.agent.builtin import trace, trace_cache
from kernelwright.tools.tasks import load_task

from .conftest import TASK


@pytest.fixture
def task_copy(tmp_path, monkeypatch):
    monkeypatch.setenv("KERNELWRIGHT_HOME", str(tmp_path / "home"))
    src = tmp_path / "task" / TASK.name
    src.parent.mkdir()
    shutil.copy(TASK, src)
    return src


def _traced_as(calls):
    def fake(tasks):
        calls.append([t.name for t in tasks])
        return [{"ok": True, "task": t.name, "nodes": [], "ops": ["abs"], "summary": "fake"} for t in tasks]
    return fake


def test_a_task_traced_once_is_read_back_until_its_reference_changes(task_copy, monkeypatch):
    calls: list[list[str]] = []
    monkeypatch.setattr(trace, "_traced", _traced_as(calls))
    task = load_task(task_copy)
    first = trace.trace_tasks([task])
    assert trace.trace_tasks([task]) == first and calls == [[task.name]]
    task_copy.write_text(task_copy.read_text() + "\n# changed\n")
    trace.trace_tasks([load_task(task_copy)])
    assert len(calls) == 2
    (task_copy.parent / "helper.py").write_text("X = 1\n")     # a neighbour the reference may import
    trace.trace_tasks([load_task(task_copy)])
    assert len(calls) == 3


def test_a_failed_trace_is_not_kept(task_copy, monkeypatch):
    calls: list[list[str]] = []

    def failing(tasks):
        calls.append([t.name for t in tasks])
        return [{"ok": False, "task": t.name, "error": "the tracer failed: no answer within 300 s", "ops": [],
                 "summary": ""} for t in tasks]
    monkeypatch.setattr(trace, "_traced", failing)
    task = load_task(task_copy)
    trace.trace_tasks([task])
    trace.trace_tasks([task])
    assert len(calls) == 2


def test_an_entry_for_another_task_is_not_used(task_copy, monkeypatch):
    task = load_task(task_copy)
    key = trace_cache.key(task)
    trace_cache.store(key, task, {"ok": True, "task": "someone_else", "nodes": []})
    assert trace_cache.load(key, task) is None
    (trace_cache.cache.cache_root(trace_cache.NAMESPACE) / f"{key}.json").write_text('{"ok": true, "task": "other"}')
    assert trace_cache.load(key, task) is None


def test_a_bench_traces_its_tasks_ahead_into_the_cache(task_copy, tmp_path):
    from kernelwright.evals.bench.options import BenchOptions
    from kernelwright.evals.bench.runner import pretrace
    task = load_task(task_copy)
    opts = BenchOptions(suite=str(task_copy), out=tmp_path / "out")
    opts.out.mkdir()
    proc = pretrace([task, task], opts)
    assert proc is not None and proc.wait(timeout=600) == 0
    cached = trace_cache.load(trace_cache.key(task), task)
    assert cached is not None and "abs" in cached["ops"]
    assert pretrace([], opts) is None
