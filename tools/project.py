"""KernelProject: one internal representation of a generated or imported AscendC operator.

Two shapes: an msopgen operator project (op_host tiling header + host source, op_kernel
source) and a kernel-launch source (a `__global__ __aicore__` kernel plus optional host code).
Files are kept as text keyed by their project-relative path.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

SOURCE_SUFFIXES = {".cpp", ".cc", ".h", ".hpp", ".asc", ".inc"}
_OP_ADD = re.compile(r"\bOP_ADD\s*\(\s*(\w+)")
_GLOBAL_KERNEL = re.compile(r"(?:__global__\s+__aicore__|__aicore__\s+__global__)\s+void\s+(\w+)\s*\(")


class ProjectError(ValueError):
    """The input is not a kernel project we can read (bad input, not our bug)."""


def snake_case(name: str) -> str:
    s = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name)
    s = re.sub(r"(?<=[A-Z])([A-Z][a-z])", r"_\1", s)
    return re.sub(r"[^0-9a-zA-Z_]", "_", s).lower().strip("_")


def camel_case(name: str) -> str:
    return "".join(p[:1].upper() + p[1:] for p in re.split(r"[^0-9a-zA-Z]+|_", name) if p)


class LaunchArg(BaseModel):
    """One parameter of a kernel-launch kernel, in order: a task input/output, a scalar computed from
    the case's shapes (a small expression such as `numel(x)`, `dim(x, -1)`, `cores`), or a workspace."""

    kind: Literal["input", "output", "scalar", "workspace", "null"]
    name: str | None = None      # input/output name
    ctype: str = "uint32_t"      # scalar C type
    expr: str | None = None      # scalar value, or workspace size in bytes


class LaunchSpec(BaseModel):
    """How to launch a kernel-launch project for a task: which kernel, how many blocks, what arguments.
    (msopgen projects need none: their host TilingFunc decides.)"""

    kernel: str
    block_dim: str = "cores"     # expression over the case's shapes; `cores` = vector cores of the SoC
    args: list[LaunchArg] = Field(default_factory=list)


class KernelProject(BaseModel):
    name: str                                    # operator type (CamelCase) or kernel name
    kind: Literal["msopgen", "kernel_launch"]
    files: dict[str, str] = Field(default_factory=dict)
    origin: str | None = None                    # where it was read from, for messages
    launch: LaunchSpec | None = None             # kernel-launch projects: how a task's case maps onto the kernel

    # ---- views ----
    @property
    def snake_name(self) -> str:
        return snake_case(self.name)

    def kernel_sources(self) -> list[str]:
        """The translation units that define kernels."""
        if self.kind == "msopgen":
            preferred = f"op_kernel/{self.snake_name}.cpp"
            if preferred in self.files:
                return [preferred]
            return sorted(p for p in self.files if p.startswith("op_kernel/") and p.endswith((".cpp", ".cc", ".asc")))
        return sorted(p for p, t in self.files.items() if p.endswith((".cpp", ".cc", ".asc")) and _GLOBAL_KERNEL.search(t))

    def host_sources(self) -> list[str]:
        if self.kind != "msopgen":
            return []
        return sorted(p for p in self.files if p.startswith("op_host/") and p.endswith((".cpp", ".cc")))

    def kernel_names(self) -> list[str]:
        names: list[str] = []
        for path in self.kernel_sources():
            for m in _GLOBAL_KERNEL.finditer(self.files[path]):
                if m.group(1) not in names:
                    names.append(m.group(1))
        return names

    # ---- I/O ----
    @classmethod
    def from_path(cls, path: str | Path) -> "KernelProject":
        p = Path(path)
        if not p.exists():
            raise ProjectError(f"{p}: no such file or directory")
        if p.is_file():
            if p.suffix not in SOURCE_SUFFIXES:
                raise ProjectError(f"{p}: not a kernel source (expected one of {', '.join(sorted(SOURCE_SUFFIXES))})")
            return cls._kernel_launch({p.name: p.read_text(errors="replace")}, p.stem, str(p))
        files = {
            str(f.relative_to(p)): f.read_text(errors="replace")
            for f in sorted(p.rglob("*"))
            if f.is_file() and f.suffix in SOURCE_SUFFIXES and "build" not in f.relative_to(p).parts[:1]
        }
        if not files:
            raise ProjectError(f"{p}: no C/C++ sources found")
        if any(k.startswith("op_host/") for k in files) and any(k.startswith("op_kernel/") for k in files):
            return cls._msopgen(files, p.name, str(p))
        return cls._kernel_launch(files, p.name, str(p))

    @classmethod
    def _msopgen(cls, files: dict[str, str], dirname: str, origin: str) -> "KernelProject":
        host_text = "\n".join(t for k, t in files.items() if k.startswith("op_host/"))
        m = _OP_ADD.search(host_text)
        if m:
            name = m.group(1)
        else:
            kernels = [k for k in files if k.startswith("op_kernel/") and k.endswith(".cpp")]
            name = camel_case(Path(kernels[0]).stem) if kernels else camel_case(dirname)
        return cls(name=name, kind="msopgen", files=files, origin=origin)

    @classmethod
    def _kernel_launch(cls, files: dict[str, str], stem: str, origin: str) -> "KernelProject":
        names = [m.group(1) for t in files.values() for m in _GLOBAL_KERNEL.finditer(t)]
        if not names:
            raise ProjectError(
                f"{origin}: no kernel found: expected an `extern \"C\" __global__ __aicore__ void name(...)` definition")
        return cls(name=names[0] if len(set(names)) == 1 else stem, kind="kernel_launch", files=files, origin=origin)

    def write(self, root: str | Path) -> Path:
        root = Path(root)
        for rel, text in self.files.items():
            target = root / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
        return root
