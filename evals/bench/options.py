"""What a bench was asked to do, and the worker spec of one of its tries (shared by the driver and
both executors)."""
from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from kernelwright.errors import UserError
from kernelwright.evals.bench.worker import WorkSpec
from kernelwright.tools.task import Task


class BenchError(UserError):
    """Bad input (unknown suite, nothing selected, an --out holding another run's results, an executor
    that cannot start)."""


class BenchOptions(BaseModel):
    suite: str
    out: Path
    model: str | None = None           # `{task}` is replaced by each task's name (per-task replay transcripts)
    backend: str = "sim"
    jobs: int | None = Field(None, ge=1)   # tries in flight; None: 1 locally, the cluster's capacity on Ray
    attempts: int = Field(1, ge=1)
    filters: list[str] = Field(default_factory=list)
    tolerance: str = "default"
    soc: str | None = None
    config: str | None = None
    timeout_s: float = Field(1800.0, gt=0)
    max_steps: int | None = None
    executor: Literal["local", "ray"] = "local"
    address: str | None = None         # Ray cluster; None: a local Ray instance
    artifacts: Path | None = None      # shared storage for the tries' artifacts; None: <out>/runs
    retries: int = Field(2, ge=0)      # Ray: reruns of a try lost with its node before it is an infrastructure failure
    cpus: float = Field(1.0, gt=0)     # Ray: CPUs per try
    memory_gb: float = Field(2.0, ge=0)    # Ray: memory per try

    def model_for(self, task: Task) -> str | None:
        return self.model.replace("{task}", task.name) if self.model else None

    @property
    def runs_root(self) -> Path:
        """Where the tries' artifact directories go, as the driver sees it."""
        return (self.artifacts or self.out / "runs").resolve()

    def work_spec(self, task: Task, attempt: int, art: Path) -> WorkSpec:
        return WorkSpec(task=task.model_dump(mode="json"), attempt=attempt, out=str(art), model=self.model_for(task),
                        backend=self.backend, tolerance=self.tolerance, soc=self.soc,
                        config=str(Path(self.config).resolve()) if self.config else None, max_steps=self.max_steps)
