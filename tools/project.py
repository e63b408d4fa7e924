"""KernelProject: one internal representation of a generated or imported AscendC operator.

Two shapes: an msopgen operator project (op_host tiling header + host source, op_kernel
source) and a kernel-launch source (a `__global__ __aicore__` kernel plus optional host code).

What lives where:
  * `files`   — everything a toolchain compiles, keyed by project-relative path:
                `op_host/<op>_tiling.h`, `op_host/<op>.cpp`, `op_kernel/<op>.cpp` (+ extra headers),
                or the kernel-launch sources (`<kernel>.cpp`, `custom_op.asc`, `kernel/*.h`, ...).
  * `glue`    — sources no kernel toolchain compiles, keyed by path; the referee reads them for
                anti-cheat checks (`binding_sources()`, `model_source()`). Conventional keys:
                  `bind/op.cpp`              MultiKernelBench `python_bind_src` (aclnn EXEC_NPU_CMD + pybind)
                  `bind/custom_op_host.cpp`  AscendKernelBench host section of `custom_op.asc` (torch.library)
                  `model_new.py`             the `ModelNew` module (MultiKernelBench `model_src`, AscendKernelBench)
                Direct-launch projects keep their own paths (e.g. `kernel/pybind11.cpp`, `ModelNew.py`);
                `cann.model_entry` names the model file then.
  * `op`      — the operator prototype (inputs/outputs/attrs with dtypes) when the source carried
                one (msopgen JSON); `op_spec()` falls back to reading the OpDef in op_host.
                On disk it is `<op>.json` (msopgen's `msopgen gen -i` input).
  * `cann`    — CANN build metadata: compute units, bisheng arch, vendor, module and model entry.
  * `meta`    — format keys carried through unchanged (direct-launch `author`, `problem`, ...).

Readers and writers for the benchmark formats live in `kernelwright.tools.formats`.
"""
from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from kernelwright.errors import UserError
from kernelwright.tools.contained_paths import inside, write_inside
from kernelwright.tools.opspec import CannBuild, OpSpec, OpSpecError

SOURCE_SUFFIXES = {".cpp", ".cc", ".h", ".hpp", ".asc", ".inc"}
MODEL_FILES = ("model_new.py", "ModelNew.py")
_OP_ADD = re.compile(r"\bOP_ADD\s*\(\s*(\w+)")
_GLOBAL_KERNEL = re.compile(
    r"(?:__global__\s+(?:__aicore__|__vector__|__cube__)|(?:__aicore__|__vector__|__cube__)\s+__global__)"
    r"\s+void\s+(\w+)\s*\(")
_BINDING = re.compile(r"\b(?:PYBIND11_MODULE|TORCH_LIBRARY(?:_IMPL)?)\s*\(")
_SKIP_DIRS = {"build", "build_out", "cmake", ".git", "__pycache__"}


class ProjectError(UserError):
    """The input is not a kernel project we can read (bad input, not our bug)."""


def snake_case(name: str) -> str:
    s = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name)
    s = re.sub(r"(?<=[A-Z])([A-Z][a-z])", r"_\1", s)
    return re.sub(r"[^0-9a-zA-Z_]", "_", s).lower().strip("_")


def camel_case(name: str) -> str:
    return "".join(p[:1].upper() + p[1:] for p in re.split(r"[^0-9a-zA-Z]+|_", name) if p)


def op_type_name(raw: str) -> str:
    """A valid CamelCase operator type for any task or kernel name: words split at odd characters,
    a leading digit gets an `Op` prefix (`10_relu` -> `Op10Relu`; MultiKernelBench issue #38).
    The rule is the task loader's, so tasks and projects name an operator alike."""
    from kernelwright.tools.tasks.names import op_names   # lazy: tasks import this module
    return op_names(raw)[0]


def is_op_type_name(name: str) -> bool:
    return re.fullmatch(r"[A-Z][A-Za-z0-9]*", name) is not None


def project_path(rel: str, origin: str | None = None) -> str:
    """A project file's name, checked before it becomes a path: relative, inside the project (no `..`),
    printable ASCII without quotes or backslashes (it is also `#include`d by generated units)."""
    parts = rel.split("/")
    bad = (not rel or rel.startswith("/") or any(p in ("", ".", "..") for p in parts)
           or not (rel.isascii() and rel.isprintable()) or set(rel) & {'"', "\\"})
    if bad:
        raise ProjectError(f"{origin or 'the project'}: the file name {rel!r} leaves the project or cannot be a "
                           "source path; use a relative path of printable ASCII without `..`, quotes or backslashes")
    return rel


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
    op: OpSpec | None = None                     # operator prototype, when the source carried one
    cann: CannBuild = Field(default_factory=CannBuild)
    glue: dict[str, str] = Field(default_factory=dict)   # binding + ModelNew sources (see module docstring)
    meta: dict[str, Any] = Field(default_factory=dict)   # format keys carried through unchanged

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

    def binding_sources(self) -> dict[str, str]:
        """The C++ glue between PyTorch and the kernel (pybind11, aclnn `EXEC_NPU_CMD`, torch.library)."""
        model = self.model_path()
        return {p: t for p, t in sorted(self.glue.items()) if p != model and not p.endswith(".py")}

    def model_path(self) -> str | None:
        """The glue key of the `ModelNew` module, if the project has one."""
        if self.cann.model_entry:
            path = self.cann.model_entry.split("::", 1)[0]
            if path in self.glue:
                return path
        for path in (*MODEL_FILES, *sorted(self.glue)):
            if path.endswith(".py") and path in self.glue and re.search(r"^class\s+ModelNew\b", self.glue[path], re.M):
                return path
        return next((p for p in MODEL_FILES if p in self.glue), None)

    def model_source(self) -> str | None:
        """The Python source of `ModelNew` (what the benchmark calls instead of the reference)."""
        path = self.model_path()
        return self.glue[path] if path else None

    def op_spec(self) -> OpSpec | None:
        """The operator prototype: the one the source carried, else the OpDef read from op_host."""
        if self.op is not None:
            return self.op
        from kernelwright.tools.formats.opdef import read_opdef   # lazy: formats import this module
        for path in self.host_sources():
            found = read_opdef(self.files[path])
            if found is not None:
                return found[1]
        return None

    def compute_units(self) -> list[str]:
        """CANN compute units (`ascend910b`, ...): the recorded ones, else the OpDef's AddConfig calls."""
        if self.cann.compute_units:
            return list(self.cann.compute_units)
        units: list[str] = []
        for path in self.host_sources():
            for unit in re.findall(r"\bAddConfig\s*\(\s*\"([^\"]+)\"", self.files[path]):
                if unit not in units:
                    units.append(unit)
        return units

    # ---- I/O ----
    @classmethod
    def from_path(cls, path: str | Path) -> "KernelProject":
        """Read a project from any form we know: a project directory (msopgen or kernel-launch), a
        kernel source, or a benchmark submission (see `kernelwright.tools.formats`)."""
        from kernelwright.tools.formats import load   # lazy: formats import this module
        return load(path)

    @classmethod
    def from_source_file(cls, p: Path) -> "KernelProject":
        if p.suffix not in SOURCE_SUFFIXES:
            raise ProjectError(f"{p}: not a kernel source (expected one of {', '.join(sorted(SOURCE_SUFFIXES))})")
        return cls._kernel_launch({p.name: p.read_text(errors="replace")}, p.stem, str(p))

    @classmethod
    def from_dir(cls, p: Path) -> "KernelProject":
        files: dict[str, str] = {}
        glue: dict[str, str] = {}
        for f in _project_files(p):
            rel = f.relative_to(p)
            if not f.is_file() or not inside(f, p):
                continue   # a FIFO or device is never opened, a link out of the project never read
            key = rel.as_posix()
            if rel.parts[0] == "bind" or key in MODEL_FILES or f.suffix in SOURCE_SUFFIXES:
                try:
                    text = f.read_text(errors="replace")
                except OSError as e:
                    raise ProjectError(f"{f}: cannot be read ({e.strerror})") from None
                (glue if rel.parts[0] == "bind" or key in MODEL_FILES or _BINDING.search(text) else files)[key] = text
        if not files:
            raise ProjectError(f"{p}: no C/C++ sources found")
        if any(k.startswith("op_host/") for k in files) and any(k.startswith("op_kernel/") for k in files):
            project = cls._msopgen(files, p.name, str(p))
        else:
            project = cls._kernel_launch(files, p.name, str(p))
        project.glue = glue
        _read_prototype(project, p)
        return project

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
        """Write files, glue and the prototype (`<op>.json`); `from_dir` reads them back."""
        root = Path(root)
        out = dict(self.files) | dict(self.glue)
        if self.op is not None:
            out[f"{self.snake_name}.json"] = self.op.to_msopgen_json(self.name)
        for rel, text in out.items():
            write_inside(root, project_path(rel, self.origin), text)
        return root


MAX_PROJECT_ENTRIES = 5000   # files and directories looked at under a project directory


def _project_files(root: Path) -> list[Path]:
    """Files under a project directory, without descending into links or build/cache directories;
    a tree far larger than a kernel project (`build /`) is refused instead of walked."""
    found: list[Path] = []
    seen = 0
    for top, dirs, names in os.walk(root):      # unreadable or vanishing entries (/proc) are skipped
        if Path(top) == root:
            dirs[:] = [d for d in dirs if d not in _SKIP_DIRS]
        seen += len(dirs) + len(names)
        if seen > MAX_PROJECT_ENTRIES:
            raise ProjectError(f"{root}: more than {MAX_PROJECT_ENTRIES} files and directories, not a kernel project; "
                               "give the project's own directory")
        found += [Path(top) / n for n in names]
    return sorted(found)


def _read_prototype(project: KernelProject, root: Path) -> None:
    """Pick up the msopgen prototype JSON and CMakePresets compute units next to the sources."""
    import json
    for f in sorted(root.glob("*.json")):
        if f.name == "CMakePresets.json":
            try:
                cache = json.loads(f.read_text())["configurePresets"][0]["cacheVariables"]
            except (ValueError, KeyError, IndexError, TypeError):
                continue
            units = str(cache.get("ASCEND_COMPUTE_UNIT", {}).get("value", ""))
            project.cann.compute_units = [u for u in units.split(";") if u and not u.startswith("__")]
            project.cann.vendor = str(cache.get("vendor_name", {}).get("value", project.cann.vendor))
            continue
        text = f.read_text(errors="replace")
        if '"op"' not in text:
            continue   # some other JSON file, not a prototype
        try:
            op_type, spec = OpSpec.from_msopgen_json(text, str(f))
        except OpSpecError as e:
            raise ProjectError(f"{e}; fix the operator prototype or remove the file") from None
        if project.op is None or op_type == project.name:
            project.op = spec
