"""The agent's LangGraph graph as a subgraph of your own graph.

    with kernel_subgraph(model="builtin") as sub:
        parent = StateGraph(MyState)                  # MyState extends RunState with your own keys
        parent.add_node("kernelwright", sub)          # the compiled graph is the node
        ...
        app.invoke({...} | initial_state("task.py", "runs/my-run"))

The subgraph reads and writes the `RunState` keys (task, plan, dsl, project, verdict, status, ...);
`initial_state` makes the keys a run starts from. The context manager builds the dependencies
(models, writer, toolchain, retriever, reference workers) and closes them afterwards."""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


def initial_state(task: Any, artifacts: str | Path, run_id: str | None = None) -> dict[str, Any]:
    """The state a run starts from: the task (a Task or a path) and its artifact directory."""
    from kernelwright.agent import state
    from kernelwright.tools.task import Task
    from kernelwright.tools.tasks import load_task
    task = task if isinstance(task, Task) else load_task(task)
    Path(artifacts).mkdir(parents=True, exist_ok=True)
    return state.initial_state(task, run_id or Path(artifacts).name, str(artifacts))


@contextmanager
def kernel_subgraph(*, config: Any = None, model: Any = None, interrupts: list[str] | None = None,
                    checkpointer: Any = None, **deps: Any) -> Iterator[Any]:
    """The compiled agent graph. `model`: a model name (`builtin`, `replay:FILE`, a litellm name) or a
    ChatModel for every node; `config`: a Config (default: files and environment); `deps`: writer,
    toolchain or retriever objects to use instead of the configured ones."""
    from kernelwright.agent.config import Config, load_config
    from kernelwright.agent.deps import make_deps
    from kernelwright.agent.graph import build_graph
    from kernelwright.agent.models import models_for

    cfg = config if isinstance(config, Config) else load_config(config)
    if isinstance(model, str):
        cfg = cfg.model_copy(deep=True)
        cfg.models.default.name = model
    models = models_for(cfg.models) if model is None or isinstance(model, str) else {n: model for n in models_for(cfg.models)}
    d = make_deps(cfg, models, **deps)
    try:
        yield build_graph(d, checkpointer=checkpointer, interrupts=interrupts or [])
    finally:
        d.close()
