"""Compiler output -> structured diagnostics with a category from AscendKernelGen's error
taxonomy, located in the user's file (not in our headers) whenever the compiler says where
the offending call came from."""
from __future__ import annotations

import re
from pathlib import Path

from kernelwright.tools.toolchain import Category, Diagnostic

_LINE = re.compile(r"^(?P<file>[^:\n]+?):(?P<line>\d+):(?:(?P<col>\d+):)? (?P<sev>fatal error|error|warning|note): (?P<msg>.*)$")
_LINK = re.compile(r"(undefined reference to [`'](?P<sym>[^`']+)['`]|ld returned \d+ exit status|ld: .*)")
_SYMBOL_PATTERNS = [
    re.compile(r"no (?:matching )?member (?:function )?(?:named )?(?:for call to )?'(?P<s>[\w:~]+)'"),
    re.compile(r"no matching (?:member )?function for call to '(?P<s>[\w:~]+)"),
    re.compile(r"no member named '(?P<s>\w+)'"),
    re.compile(r"'(?P<s>[\w:]+)' is not a member of"),
    re.compile(r"use of undeclared identifier '(?P<s>\w+)'"),
    re.compile(r"'(?P<s>\w+)' was not declared in this scope"),
    re.compile(r"unknown type name '(?P<s>\w+)'"),
    re.compile(r"no matching constructor for initialization of '(?P<s>[\w:<>, ]+)'"),
    re.compile(r"(?:call to|in) '?(?P<s>[A-Z]\w+)'?"),
]
_CATEGORY_RULES: list[tuple[Category, re.Pattern[str], bool]] = [
    # (category, pattern, also search the notes)
    ("macro_preprocessing", re.compile(r"file not found|No such file|#include|#error|macro|unterminated conditional"), False),
    ("scope_lifetime", re.compile(r"undeclared identifier|was not declared|redefinition|redeclar|unknown type name|does not name a type|not declared in"), False),
    ("memory_object", re.compile(r"cannot bind non-const lvalue|binds to a temporary|deleted function|call to deleted|not supports T as TBuf|no viable overloaded '='|expression is not assignable|read-only variable"), False),
    # clang's form of g++'s "cannot bind non-const lvalue": the only candidate wants an lvalue (FreeTensor(q.DeQue<T>()))
    ("memory_object", re.compile(r"expects an lvalue for"), True),
    ("data_type", re.compile(r"deduced conflicting types|narrow|cannot convert|no viable conversion|invalid conversion|cannot initialize|Failed to check dtype|type pair is not supported|non-scalar type|incompatible|no known conversion"), True),
    ("api_signature", re.compile(r"no matching (member )?function|no member named|is not a member of|too (few|many) (template )?arguments|requires \d+ arguments?|no matching constructor|has no member|wrong number of template arguments|candidate"), False),
    ("syntax_structure", re.compile(r"expected|extraneous|missing|stray|unterminated|expression"), False),
]


def categorize(message: str, notes: list[str]) -> Category:
    for category, pattern, with_notes in _CATEGORY_RULES:
        if pattern.search(message) or (with_notes and any(pattern.search(n) for n in notes)):
            return category
    return "other"


def _symbol(message: str) -> str | None:
    for pat in _SYMBOL_PATTERNS:
        m = pat.search(message)
        if m:
            return m.group("s").split("::")[-1]
    return None


def _readable(text: str) -> str:
    # bisheng prints `half`; our `half` is the builtin _Float16
    return text.replace("_Float16", "half")


class PathMapper:
    """Maps build-directory paths back to project-relative ones and tags our headers."""

    include_label = "<kernelwright>"     # how paths below include_root are shown

    def __init__(self, src_root: Path, include_root: Path):
        self.src_root = str(src_root.resolve()) + "/"
        self.include_root = str(include_root.resolve()) + "/"

    def user_path(self, path: str) -> str | None:
        p = str(Path(path).resolve()) if not path.startswith("<") else path
        if p.startswith(self.src_root):
            return p[len(self.src_root):]
        return None

    def display(self, path: str) -> str:
        user = self.user_path(path)
        if user is not None:
            return user
        p = str(Path(path).resolve()) if not path.startswith("<") else path
        if p.startswith(self.include_root):
            return f"{self.include_label}/" + p[len(self.include_root):]
        return path


def parse(output: str, mapper: PathMapper, stage: str = "build") -> list[Diagnostic]:
    """Parse clang/gcc/ld output into diagnostics (notes folded into their error)."""
    diags: list[Diagnostic] = []
    current: Diagnostic | None = None
    user_site: tuple[str, int, int | None] | None = None

    def finish() -> None:
        nonlocal current, user_site
        if current is None:
            return
        if current.file is None and user_site:  # error inside our headers: point at the user's call
            current.file, current.line, current.column = user_site
        current.category = categorize(current.message, current.notes)
        current.symbol = current.symbol or _symbol(current.message)
        diags.append(current)
        current, user_site = None, None

    for raw in output.splitlines():
        line = _readable(raw.rstrip())
        m = _LINE.match(line)
        if m:
            sev = m.group("sev")
            path, lineno = m.group("file"), int(m.group("line"))
            col = int(m.group("col")) if m.group("col") else None
            user = mapper.user_path(path)
            if sev == "note":
                if current is not None:
                    current.notes.append(f"{mapper.display(path)}:{lineno}: {m.group('msg')}")
                    if current.file is None and user is not None and user_site is None:
                        user_site = (user, lineno, col)
                continue
            finish()
            current = Diagnostic(stage=stage, severity="warning" if sev == "warning" else "error", message=m.group("msg"))
            if user is not None:
                current.file, current.line, current.column = user, lineno, col
            else:
                current.notes.append(f"at {mapper.display(path)}:{lineno}")
            continue
        link = _LINK.search(line)
        if link and ("undefined reference" in line or "ld returned" in line):
            if "ld returned" in line:
                continue
            finish()
            diags.append(Diagnostic(stage=stage, message=line.split(": ", 1)[-1], category="link", symbol=link.group("sym")))
            continue
        if current is not None and "required from" in line and current.file is None:
            m2 = re.match(r"^(?P<file>[^:\n]+?):(?P<line>\d+):(?P<col>\d+):\s+required from", line)
            if m2 and mapper.user_path(m2.group("file")) is not None and user_site is None:
                user_site = (mapper.user_path(m2.group("file")) or "", int(m2.group("line")), int(m2.group("col")))
    finish()
    return diags



def dedupe(diags: list[Diagnostic]) -> list[Diagnostic]:
    """Each finding once (dtype variants and repeated units report the same message)."""
    seen, out = set(), []
    for d in diags:
        key = (d.severity, d.file, d.line, d.message)
        if key in seen:
            continue
        seen.add(key)
        out.append(d)
    return out
