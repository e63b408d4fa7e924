"""A SOL-ExecBench solution (`solution.json`), the submission Huawei's npu-kernelbench and AKG Agents
read next to a task's definition.json: `name`, `definition`, `author`, optional `description`, `spec`
(`languages`, `target_hardware`, `entry_point` "file::function", `destination_passing_style`,
`binding`) and `sources[] {path, content}` (NVIDIA's schema, github.com/NVIDIA/SOL-ExecBench,
docs/solution.md). C++ and Python sources may not be mixed, so an AscendC solution is the operator's
sources plus its C++ torch binding, whose function is the entry point; the Python ModelNew stays out.

Import: `spec` and the head fields go to `meta`; sources under op_host/ and op_kernel/ make an msopgen
project, others a kernel-launch one; the entry point's file and other binding sources (PYBIND11_MODULE,
TORCH_LIBRARY) go to `glue`."""
from __future__ import annotations

import json
import re
from typing import Any

from kernelwright.tools.formats.base import FormatError, Rendered, cannot_export
from kernelwright.tools.formats.mkb_direct import _sources
from kernelwright.tools.project import KernelProject, ProjectError

LANGUAGE = "ascendc"   # how our solutions name their language (npu-kernelbench's Ascend C solutions)
_DEF = re.compile(r'\bm\.def\(\s*"(\w+)"\s*,\s*&?\s*(\w+)')
_TORCH_IMPL = re.compile(r'\bm\.impl\(\s*"(\w+)"\s*,\s*(?:TORCH_FN\()?&?\s*(\w+)')
_BINDING = ("PYBIND11_MODULE", "TORCH_LIBRARY")


def looks_like(text: str) -> bool:
    return all(k in text for k in ('"definition"', '"spec"', '"sources"'))


def parse(text: str, where: str) -> KernelProject:
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise FormatError(f"{where}:{e.lineno}:{e.colno}: not valid JSON ({e.msg})") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("spec"), dict):
        raise FormatError(f"{where}: a SOL-ExecBench solution is one JSON object with a `spec` object")
    missing = [k for k in ("name", "definition", "author", "sources") if k not in doc] + \
              [f"spec.{k}" for k in ("languages", "entry_point") if k not in doc["spec"]]
    if missing:
        raise FormatError(f"{where}: missing {', '.join(missing)}")
    sources = _sources(doc["sources"], where)
    entry = str(doc["spec"]["entry_point"])
    entry_file = entry.split("::", 1)[0]
    if entry_file not in sources:
        raise FormatError(f"{where}: spec.entry_point {entry!r} names {entry_file}, which is not among sources "
                          f"({', '.join(sources)})")
    glue = {p: t for p, t in sources.items() if p == entry_file or p.endswith(".py") or any(b in t for b in _BINDING)}
    files = {p: t for p, t in sources.items() if p not in glue}
    try:
        if any(p.startswith(("op_host/", "op_kernel/")) for p in files):
            project = KernelProject._msopgen(files, str(doc["name"]), where)
        else:
            project = KernelProject._kernel_launch(files, str(doc["name"]), where)
    except ProjectError as e:
        raise FormatError(f"{e} (among the non-binding sources {', '.join(files) or 'none'})") from None
    project.glue = glue
    project.meta = {k: doc[k] for k in ("name", "definition", "author", "description") if k in doc} | \
                   {"spec": doc["spec"]}
    return project


def _entry(bindings: dict[str, str]) -> str | None:
    """`file::function` of the C++ function the binding exposes."""
    for path, text in bindings.items():
        found = _DEF.search(text) or _TORCH_IMPL.search(text)
        if found:
            return f"{path}::{found.group(2)}"
    return None


def render(project: KernelProject, name: str | None = None) -> Rendered:
    bindings = project.binding_sources()
    entry = (project.meta.get("spec") or {}).get("entry_point") or _entry(bindings)
    if entry is None:
        raise cannot_export(project, "sol", "no C++ torch binding (a source with m.def(...) under PYBIND11_MODULE or "
                            "m.impl(...) under TORCH_LIBRARY_IMPL)",
                            "add bind/op.cpp (msopgen projects: --generate-glue writes one)")
    spec: dict[str, Any] = {"languages": [LANGUAGE], "target_hardware": ["Ascend910B"], "entry_point": entry,
                            "destination_passing_style": False, "binding": "torch"}
    spec |= {k: v for k, v in (project.meta.get("spec") or {}).items() if k not in ("entry_point",)}
    definition = project.meta.get("definition") or name or project.name
    head = {"name": project.meta.get("name") or f"{definition}_ascendc", "definition": definition,
            "author": project.meta.get("author", "kernelwright")}
    if "description" in project.meta:
        head["description"] = project.meta["description"]
    sources = [{"path": p, "content": t} for p, t in sorted(project.files.items())] + \
              [{"path": p, "content": t} for p, t in sorted(bindings.items())]
    doc = head | {"spec": spec, "sources": sources}
    notes = ["the Python ModelNew is left out: SOL-ExecBench solutions do not mix C++ and Python sources"] \
        if project.model_path() else []
    return Rendered(format="sol", name=project.name, single_file=True, notes=notes,
                    files={"solution.json": json.dumps(doc, indent=2, ensure_ascii=False) + "\n"})
