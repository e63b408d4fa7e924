"""Fold a project's own headers into the sources that include them, for formats with a fixed set
of files (MultiKernelBench's three sources, NPUKernelBench's three sections). What the
preprocessor would paste, pasted once per translation unit (as include guards would have it),
between marker comments that name the header."""
from __future__ import annotations

import posixpath
import re

from kernelwright.tools.project import KernelProject

_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"[^\n]*$', re.M)


def inline_headers(project: KernelProject, keep: set[str]) -> tuple[KernelProject, list[str]]:
    """Expand includes of project headers outside `keep` into the sources in `keep`; drop the headers
    that end up unused. Returns the new project and notes naming what was folded where."""
    files = dict(project.files)
    notes: list[str] = []
    for path in sorted(keep & set(files)):
        seen: set[str] = set()
        files[path] = _expand(files[path], path, project.files, keep, seen)
        if seen:
            notes.append(f"inlined {', '.join(sorted(seen))} into {path}")
    used = {h for n in notes for h in n.removeprefix("inlined ").split(" into ")[0].split(", ")}
    files = {p: t for p, t in files.items() if p not in used or p in keep}
    return project.model_copy(update={"files": files}), notes


def _expand(text: str, path: str, files: dict[str, str], keep: set[str], seen: set[str]) -> str:
    def paste(m: re.Match[str]) -> str:
        target = posixpath.normpath(posixpath.join(posixpath.dirname(path), m.group(1)))
        if target not in files or target in keep:
            return m.group(0)
        if target in seen:
            return f"// {m.group(1)}: already inlined above"
        seen.add(target)
        body = _expand(files[target], target, files, keep, seen).rstrip("\n")
        return f"// ---- {target} (inlined) ----\n{body}\n// ---- end of {target} ----"
    return _INCLUDE.sub(paste, text)
