"""What the nodes work with besides the state: the models per node, the writer, the toolchain, the
retriever, the reference workers and the configuration. Built once per run (or per process) and
closed over by `build_graph`; never stored in the checkpointed state."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kernelwright.agent.config import Config
from kernelwright.agent.models.base import ChatModel

if TYPE_CHECKING:
    from kernelwright.agent.writers import Writer
    from kernelwright.knowledge.retriever import Retriever
    from kernelwright.tools.task import Task
    from kernelwright.tools.tasks.reference import ReferenceWorker
    from kernelwright.tools.toolchain import Toolchain


@dataclass
class Deps:
    config: Config
    models: dict[str, ChatModel | None]
    writer: "Writer"
    toolchain: "Toolchain"
    retriever: "Retriever"
    workers: dict[str, Any] = field(default_factory=dict)

    def model(self, node: str) -> ChatModel | None:
        return self.models.get(node)

    def worker(self, task: "Task") -> "ReferenceWorker":
        """One reference worker per task, kept for the whole run (starting one imports torch)."""
        from kernelwright.tools.tasks.reference import ReferenceWorker
        if task.name not in self.workers:
            self.workers[task.name] = ReferenceWorker(task)
        return self.workers[task.name]

    def close(self) -> None:
        for w in self.workers.values():
            w.close()
        self.workers.clear()


def make_deps(config: Config, models: dict[str, ChatModel | None] | None = None, *, writer: "Writer | None" = None,
              toolchain: "Toolchain | None" = None, retriever: "Retriever | None" = None) -> Deps:
    """Concrete implementations from the configuration; any of them can be passed in instead."""
    from kernelwright.agent.models import models_for
    models = models_for(config.models) if models is None else models
    if writer is None:
        from kernelwright.agent.writers import writer_for
        writer = writer_for(models.get("dsl_writer"))
    if toolchain is None:
        toolchain = make_toolchain(config)
    if retriever is None:
        from kernelwright.knowledge.retriever import open_retriever
        from kernelwright.knowledge.versions import target_cann
        enabled = config.retriever.enabled
        if enabled is None:
            enabled = any(m is not None for m in models.values())
        retriever = open_retriever(enabled, cann=target_cann(config.toolchain.cann))
    return Deps(config=config, models=models, writer=writer, toolchain=toolchain, retriever=retriever)


def make_toolchain(config: Config) -> "Toolchain":
    from kernelwright.tools.backends import get_toolchain
    return get_toolchain(config.toolchain.backend, soc=config.toolchain.soc)
