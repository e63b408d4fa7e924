"""Python files that only assign strings (MultiKernelBench's six-strings answer), read without
running them and written so that Python reads back exactly the same text.

The answer is model output, so it is never executed: it is parsed with `ast`, and only
`name = <string>` statements are accepted, where <string> is a literal, an f-string without
`{}` expressions, or a `+` concatenation of those. A leading docstring is allowed; anything else
(imports, calls, names, loops) is rejected with its line number."""
from __future__ import annotations

import ast
import re

from kernelwright.tools.formats.base import FormatError

_STATEMENTS = {"Import": "an import", "ImportFrom": "an import", "Expr": "an expression statement (e.g. a call)",
               "For": "a for loop", "While": "a while loop", "If": "an if statement", "With": "a with statement",
               "FunctionDef": "a function definition", "ClassDef": "a class definition", "Try": "a try statement",
               "AugAssign": "an augmented assignment (+=)"}
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_FENCE = re.compile(r"^```[ \t]*(?:python|py)?[ \t]*\n(.*?)^```", re.S | re.M)


def strip_fence(text: str) -> str:
    """A model reply may wrap the code in a ```python fence: when the whole text is not Python,
    take the first fenced block."""
    try:
        ast.parse(text)
        return text
    except SyntaxError:
        m = _FENCE.search(text)
        return m.group(1) if m else text


def read_assignments(text: str, where: str) -> dict[str, str]:
    """{name: value} for every string assignment; FormatError for anything that is not one."""
    try:
        tree = ast.parse(text, filename=where)
    except SyntaxError as e:
        raise FormatError(f"{where}:{e.lineno}: not valid Python ({e.msg}); expected only "
                          "`name = \"\"\"...\"\"\"` string assignments") from None
    out: dict[str, str] = {}
    for i, node in enumerate(tree.body):
        if i == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            continue  # module docstring
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None and node.simple:
            target, value = node.target, node.value
        else:
            raise _not_allowed(where, node, _STATEMENTS.get(type(node).__name__, f"a {type(node).__name__} statement"))
        if not isinstance(target, ast.Name):
            raise _not_allowed(where, node, "an assignment to something other than a plain name")
        out[target.id] = _string(value, where, target.id)
    return out


def _string(node: ast.expr, where: str, name: str) -> str:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts = []
        for v in node.values:
            if not (isinstance(v, ast.Constant) and isinstance(v.value, str)):
                raise _not_allowed(where, node, f"an f-string with a {{...}} expression in `{name}`")
            parts.append(v.value)
        return "".join(parts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _string(node.left, where, name) + _string(node.right, where, name)
    raise _not_allowed(where, node, f"`{name}` assigned a {type(node).__name__} instead of a string literal")


def _not_allowed(where: str, node: ast.AST, what: str) -> FormatError:
    line = getattr(node, "lineno", "?")
    return FormatError(f"{where}:{line}: {what} is not allowed: the file is read, never run, so it may only "
                       "assign string literals (plain, concatenated with +, or f-strings without {} expressions)")


def literal(text: str) -> str:
    """A Python triple-quoted literal whose value is exactly `text` (raw when that is enough)."""
    if not _CONTROL.search(text):   # CR becomes LF in Python source and NUL is refused: escape those
        for quote in ('"""', "'''"):
            if quote in text or text.endswith(quote[0]):
                continue
            if "\\" not in text:
                return f"{quote}{text}{quote}"
            candidate = f"r{quote}{text}{quote}"
            try:
                if not text.endswith("\\") and ast.literal_eval(candidate) == text:
                    return candidate
            except SyntaxError:
                pass
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    escaped = _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", escaped)
    return f'"""{escaped}"""'
