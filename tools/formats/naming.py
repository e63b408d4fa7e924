"""Renaming an operator through its files and sources, for formats with naming conventions
(MultiKernelBench: `<op>_custom` / `<Op>Custom`) and for sanitised names.

Only the places that carry the operator's name are touched (OpDef class, OP_ADD, tiling
registration, aclnn entry points, the kernel definition and its launches, file names and the
Python-facing strings), never other uses of the same word: an op named `Add` must not rename
`AscendC::Add`."""
from __future__ import annotations

import re

from kernelwright.tools.project import KernelProject, op_type_name, snake_case


def mkb_name(name: str) -> str:
    """MultiKernelBench's op type: `<Op>Custom`."""
    return name if name.endswith("Custom") else name + "Custom"


def renamed(project: KernelProject, name: str | None, convention=lambda n: n) -> tuple[KernelProject, list[str]]:
    """The project under the requested name (sanitised, then the format's convention applied), and a
    note when that changed it."""
    target = convention(op_type_name(name) if name else project.name)
    if target == project.name:
        return project, []
    return rename_op(project, target), [f"renamed {project.name} -> {target}"]


def rename_op(project: KernelProject, new: str) -> KernelProject:
    old, old_s, new_s = project.name, project.snake_name, snake_case(new)
    if old == new and old_s == new_s:
        return project
    c_old, s_old = re.escape(old), re.escape(old_s)
    edits = [
        (rf"(\bclass\s+){c_old}\b", rf"\g<1>{new}"),
        (rf"(\bexplicit\s+){c_old}(\s*\()", rf"\g<1>{new}\2"),
        (rf"(\bOP_ADD\s*\(\s*){c_old}(\s*\))", rf"\g<1>{new}\2"),
        (rf"(\bREGISTER_TILING_DATA_CLASS\s*\(\s*){c_old}(\s*,|_)", rf"\g<1>{new}\2"),
        (rf"\baclnn{c_old}(?=GetWorkspaceSize\b|\b)", f"aclnn{new}"),
        (rf"(\bvoid\s+){s_old}(\s*\()", rf"\g<1>{new_s}\2"),
        (rf"(?<![\w.:]){s_old}(\s*<<<)", rf"{new_s}\1"),
        (rf"\b{s_old}_tiling\.h\b", f"{new_s}_tiling.h"),
        (rf"([\"']){s_old}([\"'])", rf"\g<1>{new_s}\2"),
        (rf"(\.\s*){s_old}(\s*\()", rf"\g<1>{new_s}\2"),
        (rf"([\"']){c_old}([\"'])", rf"\g<1>{new}\2"),
    ]

    def apply(text: str) -> str:
        for pattern, repl in edits:
            text = re.sub(pattern, repl, text)
        return text

    own = {f"{old_s}{tail}" for tail in (".cpp", ".cc", ".asc", ".json", "_tiling.h")}

    def rekey(path: str) -> str:   # only the files named after the op; other headers keep their includes valid
        head, _, base = path.rpartition("/")
        if base in own:
            base = new_s + base[len(old_s):]
        return f"{head}/{base}" if head else base

    return project.model_copy(update={
        "name": new,
        "files": {rekey(p): apply(t) for p, t in project.files.items()},
        "glue": {rekey(p) if p.startswith("bind/") else p: apply(t) for p, t in project.glue.items()},
    }, deep=True)
