"""`kernelwright.generate(task, ...)`: one task end to end — plan, write and check the DSL, lower,
verify, repair — with a checkpoint after every node (an interrupted run resumes where it stopped,
with the settings it was started with) and a trajectory in the run's artifact directory."""
from __future__ import annotations

import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from kernelwright.agent.config import NODES, Config, RunSettings, dotted, load_config, merge, validated
from kernelwright.agent.models.base import ChatModel
from kernelwright.agent.models.recorder import RecordingModel
from kernelwright.agent.checkpoints import open_saver, saved_values
from kernelwright.agent.state import Feedback, initial_state
from kernelwright.agent.trajectory import Artifacts
from kernelwright.errors import UserError

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
    perf: dict[str, Any] | None = None      # the performance phase's record (before/after), when it ran

    @property
    def ok(self) -> bool:
        return self.status == "passed"


def new_run_id(task_name: str) -> str:
    return f"{task_name}-{time.strftime('%Y%m%d-%H%M%S')}-{int(time.time() * 1000) % 1000:03d}"


def _models(model: Any, cfg: Config) -> dict[str, ChatModel | None]:
    from kernelwright.agent.models import as_chat_model, models_for
    if isinstance(model, dict):
        return {n: as_chat_model(model.get(n)) for n in NODES}
    if model is not None and not isinstance(model, str):
        one = as_chat_model(model)                  # one ChatModel (or LangChain chat model) for every node
        return {n: one for n in NODES}
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
             resume: str | None = None, changes: dict[str, Any] | None = None, answer: dict[str, Any] | None = None,
             interrupts: list[str] | None = None, on_event: EventHandler | None = None, writer: Any = None,
             toolchain: Any = None, retriever: Any = None) -> RunResult:
    """Run one task (a Task, or a path a task loader reads). `model`: a model name (`builtin`,
    `replay:FILE`, a litellm name), a ChatModel for every node, or {node: ChatModel}. The resolved
    settings are saved with the run. `resume`: the run id of a checkpointed run to continue with its
    saved settings (`config` then only says where the checkpoints are; `answer` replies to the review it
    paused at); `changes` ({setting: value}, dotted keys or `model`, `tolerance`, ...) changes some of
    them, recorded in the run. A `model` name or `interrupts` that differ from the saved ones without
    being named in `changes` are refused (ConfigError): a run does not change midway unasked."""
    from kernelwright.agent.deps import make_deps
    from kernelwright.agent.graph import build_graph

    cfg = config or load_config()
    asked = {"models.default.name": model if isinstance(model, str) else None, "agent.interrupts": interrupts}
    ckpt = cfg.paths.checkpoint_file()
    with open_saver(ckpt) as saver:
        if resume:
            values = saved_values(saver, resume, ckpt)
            run_id, artifacts = resume, Path(values["artifacts"])
            calls_done = int((values.get("usage") or {}).get("calls", 0))
            saved = values.get("settings") or RunSettings(config=cfg, models={})   # a run from before settings were saved
            settings = saved.resumed(asked, changes or {})
            cfg, chosen = settings.config, _models(model, settings.config)
        else:
            from kernelwright.tools.task import Task
            from kernelwright.tools.tasks import load_task
            cfg = validated(merge(cfg.model_dump(), asked | {dotted(k): v for k, v in (changes or {}).items()}))
            task = task if isinstance(task, Task) else load_task(task)
            chosen = _models(model, cfg)         # a bad transcript stops the run here, before its directory is touched
            if out and Path(out).exists() and not Path(out).is_dir():
                raise UserError(f"--out {out}: exists and is not a directory; give a directory for the run's artifacts")
            settings = RunSettings(config=cfg, models={n: m.name if m else "builtin" for n, m in chosen.items()})
            run_id = Path(out).name if out else new_run_id(task.name)
            artifacts, calls_done = Path(out) if out else cfg.paths.runs / run_id, 0
            _not_taken(saver, run_id, artifacts)
            saver.delete_thread(run_id)          # a new run under a reused name starts from scratch
            Artifacts(artifacts).reset()
        artifacts.mkdir(parents=True, exist_ok=True)
        art = Artifacts(artifacts)
        models = _recorded(chosen, art.calls, calls_done)
        deps = make_deps(cfg, models, writer=writer, toolchain=toolchain, retriever=retriever)
        graph = build_graph(deps, checkpointer=saver)
        thread = {"configurable": {"thread_id": run_id}, "recursion_limit": 4 * cfg.agent.max_steps + 20}
        art.write_json("config.json", settings.model_dump(mode="json"))
        if resume:
            from langgraph.types import Command
            made = settings.changes[len(saved.changes):]
            art.event("resume", changes=[c.model_dump() for c in made])
            update = ({"settings": settings} if made else {}) | _stop_shown(graph.get_state(thread), art)
            command: dict[str, Any] = {"update": update} if update else {}
            if graph.get_state(thread).interrupts:
                command["resume"] = answer or {"action": "approve"}
            inp: Any = Command(**command) if command else None
        else:
            inp = initial_state(task, run_id, str(artifacts), settings)
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


def _not_taken(saver: Any, run_id: str, artifacts: Path) -> None:
    """A run id is its directory's name: refuse one that a run elsewhere (another --out with the same last
    name) still holds, unfinished, in the same checkpoint store; deleting its checkpoints would make two runs
    continue from each other's state."""
    found = saver.get_tuple({"configurable": {"thread_id": run_id}})
    other = Path(found.checkpoint["channel_values"].get("artifacts", "")) if found else None
    if other is None or other.resolve() == artifacts.resolve():
        return
    status = (Artifacts(other).summary() or {}).get("status")
    if status in (None, "interrupted"):
        raise UserError(f"run id {run_id!r} (the name of --out) belongs to an unfinished run at {other} in the same "
                        "checkpoint store; give --out a directory of another name, or resume that run")


def _stop_shown(snapshot: Any, art: Artifacts) -> dict[str, Any]:
    """A run stopped by an error (not Ctrl-C) resumes at the step that failed: that step's model is told what
    ended the run, so it does not send the reply that failed again."""
    last = art.summary() or {}
    nxt = [n for n in snapshot.next if n in ("planner", "dsl_writer", "lowerer", "ascendc_writer")]
    if last.get("status") != "interrupted" or not last.get("error") or not nxt:
        return {}
    text = (f"The last attempt at this step ended the run with an error on kernelwright's side ({last['reason'][:600]}); "
            "the run was resumed. Do it differently this time, avoiding whatever led to that error.")
    return {"feedback": Feedback(to=nxt[0], source="resume", text=text)}


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
    verdict = v["verdict"].model_dump() if v.get("verdict") else None
    common = dict(run_id=run_id, artifacts=artifacts, kernel=kernel, verdict=verdict, path=v.get("path", []),
                  usage=v.get("usage", {}), perf=v.get("perf"))
    if snapshot.next:                  # paused at a review point
        pending = snapshot.interrupts[0].value if snapshot.interrupts else {}
        from kernelwright.agent.nodes.finish import write_summary
        reason = f"waiting for review at {', '.join(snapshot.next)}; resume with the run id {run_id}"
        write_summary(Artifacts(artifacts), v, "interrupted", reason)
        return RunResult(status="interrupted", reason=reason, pending=pending, **common)
    return RunResult(status=v.get("status") or "failed", reason=v.get("reason") or "", **common)
