"""What every format module shares: the error type, the rendered-output type, and small text helpers."""
from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field

from kernelwright.tools.project import KernelProject, ProjectError

MAX_INPUT_BYTES = 8 << 20   # a submission is source text; anything bigger is not one


class FormatError(ProjectError):
    """A submission we cannot read, or a project a format cannot carry (bad input, not our bug)."""


class Rendered(BaseModel):
    """A project written in one format, before it touches the disk."""

    format: str
    name: str                                   # operator / kernel name as written
    files: dict[str, str]                       # relative path -> text (one entry for single-file formats)
    single_file: bool = False
    notes: list[str] = Field(default_factory=list)   # what changed on the way (renames, dropped glue)


def tidy(text: str) -> str:
    """Section text as a file: no leading/trailing blank lines, one final newline. Importers store
    this form, so what one exporter wraps and another importer unwraps compares equal."""
    text = text.strip()
    return text + "\n" if text else ""


def read_text(path: Path) -> str:
    if path.stat().st_size > MAX_INPUT_BYTES:
        raise FormatError(f"{path}: {path.stat().st_size} bytes is too large for a submission "
                          f"(limit {MAX_INPUT_BYTES >> 20} MiB)")
    return path.read_text(errors="replace")


def cannot_export(project: KernelProject | str, fmt: str, missing: str, hint: str) -> FormatError:
    name = project if isinstance(project, str) else project.name
    return FormatError(f"cannot export {name} as {fmt}: {missing}\n  hint: {hint}")


_KIND_ADVICE = {
    "msopgen": ("it is a kernel-launch project; {fmt} carries msopgen operators (op_host tiling + OpDef, op_kernel)",
                "use --format mkb-direct or akb for kernel-launch projects"),
    "kernel_launch": ("it is an msopgen operator; {fmt} carries kernel-launch sources launched directly",
                      "use --format mkb, npukb or cann for msopgen operators"),
}


def require_kind(project: KernelProject, fmt: str, kind: str) -> None:
    if project.kind != kind:
        missing, hint = _KIND_ADVICE[kind]
        raise cannot_export(project, fmt, missing.format(fmt=fmt), hint)


def only_files(project: KernelProject, fmt: str, allowed: set[str], hint: str, shown: str | None = None) -> None:
    """Formats with a fixed set of files cannot carry extra headers; name the ones left over."""
    extra = sorted(set(project.files) - allowed)
    if extra:
        raise cannot_export(shown or project, fmt, f"the format has no place for {', '.join(extra)} "
                            f"(it carries only {', '.join(sorted(allowed))})", hint)


def fence_safe(project: KernelProject, fmt: str, path: str, text: str) -> None:
    """Sections end at the next ``` line; a source holding one would be cut short on import."""
    if "\n```" in "\n" + text:
        raise cannot_export(project, fmt, f"{path} contains a ``` line, which would end its fenced block early",
                            "remove the backtick fence from the source (e.g. from a comment)")
