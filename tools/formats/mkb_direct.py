"""MultiKernelBench's direct-launch submission (backends/ascendc_direct_launch_backend.py): one JSON
object with `name`, `author`, `problem`, `format_version`, `entry.model` ("ModelNew.py::ModelNew"),
`build.type = "ascendc_direct_launch"` (optional `module_name`, `kernel_sources`, `binding_sources`,
`include_dirs`, `build_dir`) and `sources[] {path, content}`.

Import: the model entry and the binding sources (named in `build.binding_sources`, else the .cpp
files holding PYBIND11_MODULE or named pybind11.cpp, as the harness infers them) go to `glue`, so
do other .py files; everything else is a kernel-launch `files` entry, under its own path."""
from __future__ import annotations

import json
from pathlib import PurePosixPath
from typing import Any

from kernelwright.tools.formats.base import FormatError, Rendered, cannot_export, require_kind
from kernelwright.tools.project import KernelProject, ProjectError

BUILD_TYPE = "ascendc_direct_launch"
_HEAD_KEYS = ("name", "author", "problem", "format_version", "description")
_BUILD_KEYS = ("kernel_sources", "binding_sources", "include_dirs", "build_dir")


def looks_like(text: str) -> bool:
    return BUILD_TYPE in text and '"sources"' in text


def parse(text: str, where: str) -> KernelProject:
    body = text.strip()
    if body.startswith("```"):   # a model reply may fence the JSON
        body = body.split("\n", 1)[-1].rsplit("```", 1)[0]
    try:
        spec = json.loads(body)
    except json.JSONDecodeError as e:
        raise FormatError(f"{where}:{e.lineno}:{e.colno}: not valid JSON ({e.msg})") from None
    if not isinstance(spec, dict):
        raise FormatError(f"{where}: expected one JSON object, found {type(spec).__name__}")
    build = spec.get("build") or {}
    if not isinstance(build, dict) or build.get("type") != BUILD_TYPE:
        raise FormatError(f"{where}: build.type is {build.get('type') if isinstance(build, dict) else build!r}, "
                          f"expected {BUILD_TYPE!r}")
    sources = _sources(spec.get("sources"), where)
    entry = (spec.get("entry") or {}).get("model") or "ModelNew.py::ModelNew"
    model_path = entry.split("::", 1)[0]
    if model_path not in sources:
        raise FormatError(f"{where}: entry.model {entry!r} names {model_path}, which is not among sources "
                          f"({', '.join(sources)})")
    bindings = set(build.get("binding_sources") or []) or {
        p for p, t in sources.items() if p.endswith((".cpp", ".cc", ".cxx"))
        and (PurePosixPath(p).name == "pybind11.cpp" or "PYBIND11_MODULE" in t)}
    files = {p: t for p, t in sources.items() if p not in bindings and not p.endswith(".py")}
    try:
        project = KernelProject._kernel_launch(files, spec.get("name") or "kernel", where)
    except ProjectError as e:
        raise FormatError(f"{e} (among the non-binding sources {', '.join(files) or 'none'})") from None
    project.glue = {p: t for p, t in sources.items() if p not in files}
    project.cann.model_entry = entry
    project.cann.module_name = build.get("module_name")
    project.meta = {k: spec[k] for k in _HEAD_KEYS if k in spec} | {k: build[k] for k in _BUILD_KEYS if k in build}
    return project


def _sources(items: Any, where: str) -> dict[str, str]:
    if not isinstance(items, list) or not items:
        raise FormatError(f"{where}: `sources` must be a non-empty list of {{\"path\", \"content\"}} objects")
    out: dict[str, str] = {}
    for i, s in enumerate(items):
        if not isinstance(s, dict) or not isinstance(s.get("path"), str) or not isinstance(s.get("content", ""), str):
            raise FormatError(f"{where}: sources[{i}] must be an object with string `path` and `content`")
        path = PurePosixPath(s["path"])
        if path.is_absolute() or ".." in path.parts or not path.parts:
            raise FormatError(f"{where}: sources[{i}].path {s['path']!r} must be relative and stay inside the project")
        if str(path) in out:
            raise FormatError(f"{where}: sources[{i}].path {s['path']!r} appears twice")
        out[str(path)] = s.get("content", "")
    return out


def render(project: KernelProject, name: str | None = None) -> Rendered:
    require_kind(project, "mkb-direct", "kernel_launch")
    model = project.model_path()
    if model is None:
        raise cannot_export(project, "mkb-direct", "no ModelNew module (entry.model)",
                            "add ModelNew.py (class ModelNew calling the pybind module) to the project")
    bindings = project.binding_sources()
    if not any("PYBIND11_MODULE" in t for t in bindings.values()):
        raise cannot_export(project, "mkb-direct", "no pybind binding (a source with PYBIND11_MODULE)",
                            "add the binding .cpp that launches the kernel and defines PYBIND11_MODULE")
    clash = sorted(set(project.files) & set(project.glue))
    if clash:
        raise cannot_export(project, "mkb-direct", f"{', '.join(clash)} is both a source and glue", "rename one")
    head = {"name": project.meta.get("name") or name or project.name, "author": project.meta.get("author", "kernelwright"),
            "problem": project.meta.get("problem") or name or project.name, "format_version": project.meta.get("format_version", "0.1")}
    if "description" in project.meta:
        head["description"] = project.meta["description"]
    build: dict[str, Any] = {"type": BUILD_TYPE}
    if project.cann.module_name:
        build["module_name"] = project.cann.module_name
    build |= {k: project.meta[k] for k in _BUILD_KEYS if k in project.meta}
    entry = project.cann.model_entry or f"{model}::ModelNew"
    order = [model] + sorted(p for p in project.files) + sorted(p for p in project.glue if p != model)
    sources = [{"path": p, "content": project.files.get(p, project.glue.get(p, ""))} for p in order]
    doc = head | {"entry": {"model": entry}, "build": build, "sources": sources}
    stem = str(head["name"]).replace("/", "_")
    return Rendered(format="mkb-direct", name=project.name, single_file=True,
                    files={f"{stem}.json": json.dumps(doc, indent=2, ensure_ascii=False) + "\n"})
