"""Task loaders for each benchmark layout, the CPU reference worker and shape shrinking."""
from kernelwright.tools.task import Task, TaskCase, TaskError
from kernelwright.tools.tasks.load import load_task, load_tasks

__all__ = ["Task", "TaskCase", "TaskError", "load_task", "load_tasks"]
