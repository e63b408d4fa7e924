"""Emit one of the DSL's own example programs (prompts/examples/, each tested against its tasks) for a
traced reference, with the attributes the trace fixed baked in as module constants. Baking, rather
than leaving them to the binding, matters: a task's init values bind to attributes by name or else
by position, and a position can hand `keepdim` the task's `eps`."""
from __future__ import annotations

import ast
from typing import Any

from kernelwright.agent.prompting import EXAMPLES_DIR


class ExampleMissing(LookupError):
    pass


def _offset(lines: list[str], lineno: int, col: int) -> int:
    """Character offset of an ast position (whose column counts UTF-8 bytes)."""
    return sum(len(line) for line in lines[:lineno - 1]) + len(lines[lineno - 1].encode()[:col].decode(errors="ignore"))


def _literal(v: Any) -> str:
    return repr(v) if isinstance(v, (bool, int)) else repr(float(v))


def instantiate(path: str, consts: dict[str, Any], task: str) -> str:
    """The program at prompts/examples/<path>, its attributes in `consts` turned into module constants."""
    file = EXAMPLES_DIR / path
    if not file.is_file():
        raise ExampleMissing(f"the DSL example {path} is not in {EXAMPLES_DIR}")
    src = file.read_text(encoding="utf-8")
    tree = ast.parse(src)
    lines = src.splitlines(keepends=True)
    edits: list[tuple[int, int, str]] = []          # (start, end, replacement) in characters

    def span(node: ast.AST) -> tuple[int, int]:
        return _offset(lines, node.lineno, node.col_offset), _offset(lines, node.end_lineno, node.end_col_offset)

    for fn in (n for n in tree.body if isinstance(n, ast.FunctionDef)):
        deco = fn.decorator_list[0]
        kind = ast.unparse(deco.func if isinstance(deco, ast.Call) else deco)
        if kind in ("A.tiling", "A.shapes") and fn.args.args:
            kept = [a.arg for a in fn.args.args if a.arg not in consts]
            edits.append((span(fn.args.args[0])[0], span(fn.args.args[-1])[1], ", ".join(kept)))
        if kind == "A.kernel":
            for kw in deco.keywords:
                if kw.arg == "attrs" and isinstance(kw.value, ast.Dict):
                    kept = [f"{ast.unparse(k)}: {ast.get_source_segment(src, v)}"
                            for k, v in zip(kw.value.keys, kw.value.values) if k.value not in consts]
                    edits.append((*span(kw.value), "{" + ", ".join(kept) + "}"))
    imp = next(n for n in tree.body if isinstance(n, ast.Import))
    at = span(imp)[1]
    baked = "".join(f"\n{k} = {_literal(v)}" for k, v in consts.items())
    edits.append((at, at, f"\n# {task}: written by the builtin writer from the example {path}; the traced reference "
                          f"fixes these attributes:{baked}"))
    for start, end, text in sorted(edits, reverse=True):
        src = src[:start] + text + src[end:]
    return src
