"""`kernelwright.generate(task, ...)`: one task end to end — plan, write and check the DSL, lower,
verify, repair — with a checkpoint after every node (an interrupted run resumes where it stopped)
and a trajectory in the run's artifact directory."""
from __future__ import annotations

import sqlite3
import time
import traceback
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from kernelwright.agent.config import NODES, Config, load_config
from kernelwright.agent.models.base import ChatModel
from kernelwright.agent.models.recorder import RecordingModel
from kernelwright.agent.trajectory import Artifacts

EventHandler = Callable[[str, Any], None]


class RunResult(BaseModel):
    run_id: str
    status: str                        # passed | failed | budget_exhausted | environment_error | interrupted
    reason: str
    artifacts: Path
    kernel: Path | None = None
    verdict: dict[str, Any] | None = None
    path: list[str] = []
    usage: dict[str, float] = {}
    pending: dict[str, Any] | None = None   # the review question when paused at an interrupt point

    @property
    def ok(self) -> bool:
        return self.status == "passed"


class NoSuchRun(ValueError):
    """`resume` names a run the checkpoint file does not hold."""


def new_run_id(task_name: str) -> str:
    return f"{task_name}-{time.strftime('%Y%m%d-%H%M%S')}-{int(time.time() * 1000) % 1000:03d}"


def _models(model: Any, cfg: Config) -> dict[str, ChatModel | None]:
    from kernelwright.agent.models import models_for
    if isinstance(model, dict):
        return {n: model.get(n) for n in NODES}
    if model is not None and not isinstance(model, str):
        return {n: model for n in NODES}            # one ChatModel for every node
    return models_for(cfg.models)


def _recorded(models: dict[str, ChatModel | None], path: Path, calls_done: int) -> dict[str, ChatModel | None]:
    wrapped: dict[int, RecordingModel] = {}
    for m in models.values():
        if m is not None and id(m) not in wrapped:
            wrapped[id(m)] = RecordingModel(m, path)
    if len(wrapped) == 1 and calls_done:
        next(iter(wrapped.values())).seek(calls_done)   # a replayed transcript continues after the checkpoint
    return {n: (wrapped[id(m)] if m is not None else None) for n, m in models.items()}


def generate(task: Any = None, *, model: Any = None, config: Config | None = None, out: str | Path | None = None,
             resume: str | None = None, answer: dict[str, Any] | None = None, interrupts: list[str] | None = None,
             on_event: EventHandler | None = None, writer: Any = None, toolchain: Any = None,
             retriever: Any = None) -> RunResult:
    """Run one task (a Task, or a path a task loader reads). `model`: a model name (`builtin`,
    `replay:FILE`, a litellm name), a ChatModel for every node, or {node: ChatModel}. `resume`: the
    run id of a checkpointed run to continue (`answer` replies to the review it paused at)."""
    from kernelwright.agent.deps import make_deps
    from kernelwright.agent.graph import build_graph

    cfg = config or load_config(overrides={"models.default.name": model if isinstance(model, str) else None})
    if isinstance(model, str) and config is not None:
        cfg = cfg.model_copy(deep=True)
        cfg.models.default.name = model
    ckpt = cfg.paths.checkpoint_file()
    ckpt.parent.mkdir(parents=True, exist_ok=True)
    with closing(sqlite3.connect(str(ckpt), check_same_thread=False)) as conn:
        from langgraph.checkpoint.sqlite import SqliteSaver
        saver = SqliteSaver(conn)
        if resume:
            found = saver.get_tuple({"configurable": {"thread_id": resume}})
            if found is None:
                raise NoSuchRun(f"no checkpoint for run {resume!r} in {ckpt}; run ids are the artifact directory names")
            values = found.checkpoint["channel_values"]
            run_id, artifacts = resume, Path(values["artifacts"])
            calls_done = int((values.get("usage") or {}).get("calls", 0))
        else:
            from kernelwright.tools.task import Task
            from kernelwright.tools.tasks import load_task
            task = task if isinstance(task, Task) else load_task(task)
            run_id = Path(out).name if out else new_run_id(task.name)
            artifacts, calls_done = Path(out) if out else cfg.paths.runs / run_id, 0
            saver.delete_thread(run_id)          # a new run under a reused name starts from scratch
            Artifacts(artifacts).reset()
        artifacts.mkdir(parents=True, exist_ok=True)
        models = _recorded(_models(model, cfg), Artifacts(artifacts).calls, calls_done)
        deps = make_deps(cfg, models, writer=writer, toolchain=toolchain, retriever=retriever)
        graph = build_graph(deps, checkpointer=saver, interrupts=interrupts)
        thread = {"configurable": {"thread_id": run_id}, "recursion_limit": 4 * cfg.agent.max_steps + 20}
        if resume:
            from langgraph.types import Command
            pending = graph.get_state(thread).interrupts
            inp: Any = Command(resume=answer or {"action": "approve"}) if pending else None
        else:
            inp = {"task": task.model_dump(), "run_id": run_id, "artifacts": str(artifacts), "dsl_version": 0,
                   "project_version": 0, "attempts": {}, "usage": {}, "path": [], "verdicts": []}
        try:
            for mode, chunk in graph.stream(inp, thread, stream_mode=["updates", "custom"]):
                if on_event:
                    on_event(mode, chunk)
        except BaseException as e:
            _stopped(graph, thread, artifacts, e)
            raise
        finally:
            deps.close()
        return _result(graph.get_state(thread), run_id, artifacts)


def _stopped(graph: Any, thread: dict, artifacts: Path, e: BaseException) -> None:
    """A run cut short (Ctrl-C, a replay that diverged, our own bug): save what is known, then re-raise.
    It resumes from its last checkpoint with `resume=<run id>`."""
    from kernelwright.agent.nodes.finish import write_summary
    values = graph.get_state(thread).values
    reason = f"stopped by {type(e).__name__}: {e}".strip()
    data = write_summary(Artifacts(artifacts), values, "interrupted", reason)
    if not isinstance(e, KeyboardInterrupt):
        data["error"] = traceback.format_exception(e)[-6:]
        Artifacts(artifacts).write_json("run.json", data)


def _result(snapshot: Any, run_id: str, artifacts: Path) -> RunResult:
    v = snapshot.values
    kernel = artifacts / "kernel" if (artifacts / "kernel").is_dir() else None
    common = dict(run_id=run_id, artifacts=artifacts, kernel=kernel, verdict=v.get("verdict"), path=v.get("path", []),
                  usage=v.get("usage", {}))
    if snapshot.next:                  # paused at a review point
        pending = snapshot.interrupts[0].value if snapshot.interrupts else {}
        from kernelwright.agent.nodes.finish import write_summary
        reason = f"waiting for review at {', '.join(snapshot.next)}; resume with the run id {run_id}"
        write_summary(Artifacts(artifacts), v, "interrupted", reason)
        return RunResult(status="interrupted", reason=reason, pending=pending, **common)
    return RunResult(status=v.get("status") or "failed", reason=v.get("reason") or "", **common)
