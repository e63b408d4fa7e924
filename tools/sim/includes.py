"""Include directories that a project's own build adds beyond CANN's: `KW_SIM_INCLUDE` (paths
separated by os.pathsep), and NPUKernelBench's cann-ops common headers. The benchmark builds every
answer inside its `libs/common_include/cann-ops` project, whose CMake puts `src/common/inc` (and
`src/common/inc/kernel` for kernels) on the path and defines the log sub-module macros; a task
tree checked out next to that `libs/` directory is built the same way. The headers are read from
there, never copied; their contents are part of the build cache key."""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

from kernelwright.tools.project import KernelProject

ENV = "KW_SIM_INCLUDE"
NPUKB_COMMON = Path("libs/common_include/cann-ops/src/common/inc")
NPUKB_DEFINES = ['-DOPS_UTILS_LOG_SUB_MOD_NAME="OP_TILING"', '-DOPS_UTILS_LOG_PACKAGE_TYPE="[Custom]"']


def npukb_common(origin: str | None) -> Path | None:
    """The benchmark's common include directory for a project read from inside its task tree."""
    if not origin:
        return None
    for parent in Path(origin).resolve().parents:
        if (parent / NPUKB_COMMON).is_dir():
            return parent / NPUKB_COMMON
    return None


def extra_dirs(project: KernelProject) -> list[Path]:
    dirs = [Path(p) for p in os.environ.get(ENV, "").split(os.pathsep) if p]
    common = npukb_common(project.origin)
    if common is not None:
        dirs += [common, common / "kernel"]
    return [d.resolve() for d in dirs if d.is_dir()]


def flags(project: KernelProject) -> list[str]:
    dirs = extra_dirs(project)
    out = [f"-I{d}" for d in dirs]
    if npukb_common(project.origin) is not None:
        out += NPUKB_DEFINES
    return out


def key_parts(project: KernelProject) -> list[str]:
    """The directories and a digest of every header in them, for the build cache key."""
    parts: list[str] = []
    for d in extra_dirs(project):
        h = hashlib.sha256()
        for f in sorted(d.rglob("*")):
            if f.is_file() and f.suffix in (".h", ".hpp", ".inc"):
                h.update(str(f.relative_to(d)).encode())
                h.update(f.read_bytes())
        parts += [str(d), h.hexdigest()]
    return parts
