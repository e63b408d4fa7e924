"""`kernelwright.verify(project, task, ...)`: the referee from Python, on paths or loaded objects.
A kernel that fails is a Verdict (status fail/error); only bad input raises (TaskError, ProjectError,
UnknownBackend, UnknownTolerance)."""
from __future__ import annotations

from pathlib import Path
from typing import Any


def verify(project: Any, task: Any, *, backend: str = "sim", tolerance: str = "default", soc: str | None = None,
           trials: int | None = None, launch: str | Path | dict | None = None, budget: int | None = None,
           toolchain: Any = None, **options: Any) -> Any:
    """Build `project`, run it on `task`'s cases and compare with the PyTorch reference.

    project: a KernelProject, or a path in any form `kernelwright export` reads (project directory,
    kernel source, benchmark submission). task: a Task or a path a task loader reads. launch: a
    launch spec (path, JSON dict) for a kernel-launch project. Further options go to the referee
    (`seed`, `cases`, `recheck`, ...)."""
    from kernelwright.tools.backends import get_toolchain
    from kernelwright.tools.project import KernelProject, LaunchSpec
    from kernelwright.tools.referee import verify as referee
    from kernelwright.tools.referee.verify import DEFAULT_BUDGET
    from kernelwright.tools.task import Task
    from kernelwright.tools.tasks import load_task

    task = task if isinstance(task, Task) else load_task(task)
    project = project if isinstance(project, KernelProject) else KernelProject.from_path(project)
    if launch is not None:
        spec = launch if isinstance(launch, dict) else Path(launch).read_text(encoding="utf-8")
        project = project.model_copy(update={"launch": LaunchSpec.model_validate(spec) if isinstance(spec, dict)
                                             else LaunchSpec.model_validate_json(spec)})
    own = toolchain is None
    toolchain = toolchain or get_toolchain(backend, soc=soc)
    try:
        return referee(task, project, toolchain, tolerance=tolerance, trials=trials, soc=soc,
                       budget=budget or DEFAULT_BUDGET, **options)
    finally:
        if own:
            toolchain.close()
