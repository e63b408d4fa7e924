"""The format registry: detection, loading, rendering and writing, one entry per format."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from pydantic import BaseModel, Field

from kernelwright.tools.formats import akb, cann, mkb, mkb_direct, npukb, sol
from kernelwright.tools.formats.base import FormatError, Rendered, read_text
from kernelwright.tools.formats.glue import default_glue
from kernelwright.tools.formats.opdef import read_opdef
from kernelwright.tools.contained_paths import input_problem, write_inside
from kernelwright.tools.project import SOURCE_SUFFIXES, KernelProject, ProjectError


@dataclass(frozen=True)
class Format:
    name: str
    summary: str
    render: Callable[..., Rendered]


FORMATS: dict[str, Format] = {f.name: f for f in (
    Format("mkb", "MultiKernelBench six strings (.py)", mkb.render),
    Format("mkb-direct", "MultiKernelBench direct-launch JSON", mkb_direct.render),
    Format("npukb", "NPUKernelBench three sections or <kernel_impl>", npukb.render),
    Format("akb", "AscendKernelBench custom_op.asc + model_new.py (directory)", akb.render),
    Format("cann", "CANN msopgen project directory (build.sh)", cann.render),
    Format("sol", "SOL-ExecBench solution.json (npu-kernelbench, AKG Agents)", sol.render),
)}


class ExportResult(BaseModel):
    format: str
    name: str                                  # operator / kernel name as written
    paths: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)


def detect_text(text: str) -> str | None:
    """The format of a submission held as text, from its content."""
    if mkb_direct.looks_like(text):
        return "mkb-direct"
    if sol.looks_like(text):
        return "sol"
    if akb.looks_like_reply(text) or akb.looks_like_asc(text):
        return "akb"
    if npukb.looks_like(text):
        return "npukb"
    if mkb.looks_like(text):
        return "mkb"
    return None


def loads(text: str, where: str = "<text>", fmt: str | None = None) -> KernelProject:
    """Read a submission from text (a file's content or a model reply)."""
    found = detect_text(text)
    if fmt is not None and found != fmt:
        raise FormatError(f"{where}: does not look like {fmt} ({'it looks like ' + found if found else 'no known format'})")
    if found == "mkb-direct":
        project = mkb_direct.parse(text, where)
    elif found == "sol":
        project = sol.parse(text, where)
    elif found == "akb":
        project = akb.parse_reply(text, where) if akb.looks_like_reply(text) else akb.parse(text, None, where)
    elif found == "npukb":
        project = npukb.parse(text, where)
    elif found == "mkb":
        project = mkb.parse(text, where)
    else:
        raise FormatError(f"{where}: not a kernel submission we know: expected MultiKernelBench six strings "
                          "(project_json_src = ... kernel_src = ...), a direct-launch JSON (build.type "
                          "ascendc_direct_launch), a SOL-ExecBench solution.json, NPUKernelBench sections or <kernel_impl>, "
                          "or an AscendKernelBench custom_op.asc with its ASCEND_HOST_SECTION marker")
    return _normalise(project)


def load(path: str | Path, fmt: str | None = None) -> KernelProject:
    """Read a project from a directory (CANN/msopgen, kernel-launch, AscendKernelBench), a kernel
    source, or a submission file in any format above."""
    p = Path(path)
    problem = input_problem(p)
    if problem:
        raise ProjectError(f"{p}: {problem}")
    if fmt is not None and fmt not in FORMATS:
        raise FormatError(f"unknown format {fmt!r} (known: {', '.join(FORMATS)})")
    if p.is_dir():
        if (p / akb.ASC).is_file() and akb.looks_like_asc(read_text(p / akb.ASC)) and fmt in (None, "akb"):
            return _normalise(akb.load_dir(p))   # otherwise the halves are already apart (KernelProject.write)
        if fmt not in (None, "cann"):
            raise FormatError(f"{p}: a directory; {fmt} submissions are files")
        return _normalise(KernelProject.from_dir(p))
    text = read_text(p)
    if akb.looks_like_asc(text) and not akb.looks_like_reply(text) and fmt in (None, "akb"):
        return _normalise(akb.load_dir(p))     # kernels + ASCEND_HOST_SECTION + torch glue
    if p.suffix in SOURCE_SUFFIXES:
        if fmt is not None:
            raise FormatError(f"{p}: a kernel source, not a {fmt} submission")
        return KernelProject.from_source_file(p)
    return loads(text, str(p), fmt)


def _normalise(project: KernelProject) -> KernelProject:
    """Every importer leaves an msopgen project with its prototype and compute units filled in from
    the OpDef when the format did not carry them, so that projects compare equal across formats."""
    if project.kind != "msopgen":
        return project
    if project.op is None:
        for path in project.host_sources():
            found = read_opdef(project.files[path])
            if found is not None:
                project.op = found[1]
                break
    if not project.cann.compute_units:
        project.cann.compute_units = project.compute_units()
    return project


def render(project: KernelProject, fmt: str, *, name: str | None = None, generate_glue: bool = False) -> Rendered:
    """The project as files of one format (nothing written)."""
    if fmt not in FORMATS:
        raise FormatError(f"unknown format {fmt!r} (known: {', '.join(FORMATS)})")
    notes = []
    if generate_glue and fmt in ("mkb", "sol") and project.kind == "msopgen" and (not project.binding_sources() or project.model_source() is None):
        spec = project.op_spec()
        if spec is None:
            raise FormatError(f"cannot generate glue for {project.name}: no operator prototype (no <op>.json, "
                              "and no OpDef could be read from op_host)")
        glue = default_glue(project.name, project.snake_name, spec, project.cann.module_name or "custom_ops_lib")
        project = project.model_copy(update={"glue": glue | dict(project.glue)}, deep=True)
        notes.append("generated default glue (bind/op.cpp, model_new.py); outputs are allocated like the first input")
    rendered = FORMATS[fmt].render(project, name=name)
    rendered.notes[:0] = notes
    return rendered


def export(project: KernelProject, fmt: str, out: str | Path, *, name: str | None = None,
           generate_glue: bool = False) -> ExportResult:
    """Write the project in one format: a file for single-file formats (inside `out` when it is a
    directory), a directory otherwise."""
    rendered = render(project, fmt, name=name, generate_glue=generate_glue)
    out = Path(out)
    if rendered.single_file:
        ((rel, text),) = rendered.files.items()
        targets = {(out / rel if out.is_dir() else out): text}
    else:
        if out.exists() and not out.is_dir():
            raise FormatError(f"{out}: exists and is not a directory ({fmt} writes a directory)")
        targets = {out / rel: text for rel, text in rendered.files.items()}
    root = out.parent if rendered.single_file and not out.is_dir() else out
    for target, text in targets.items():
        write_inside(root, target.relative_to(root), text)
        if target.name == "build.sh":
            target.chmod(0o755)
    return ExportResult(format=fmt, name=rendered.name, paths=[str(t) for t in targets], notes=rendered.notes)
