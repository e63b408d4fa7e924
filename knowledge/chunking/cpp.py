"""C/C++ headers → sections, one per top-level declaration (functions, classes, enums, macros,
aliases), named by what they declare; small neighbours are grouped, large ones split."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from kernelwright.knowledge.chunking.sections import MAX_CHARS, Section, split_long

_TRANSPARENT = re.compile(r'^\s*(?:inline\s+)?namespace\b([\w:\s]*)$|^\s*extern\s+"C"\s*$', re.S)
_RECORD = re.compile(r"\b(class|struct|union|enum)\s+(?:class\s+|struct\s+)?(?:alignas\s*\([^)]*\)\s*)?([A-Za-z_]\w*)")
_TEMPLATE_PREFIX = re.compile(r"^\s*template\s*<")
_IDENT = re.compile(r"[A-Za-z_~]\w*")


@dataclass
class _Decl:
    start: int
    end: int
    name: str


@dataclass
class _Scanner:
    text: str
    decls: list[_Decl] = field(default_factory=list)
    namespaces: list[str | None] = field(default_factory=list)  # None = extern "C" block
    decl_text: list[str] = field(default_factory=list)
    decl_start: int | None = None
    comment_start: int | None = None
    opaque: int = 0  # depth inside a function or class body
    await_semicolon: bool = False

    def emit(self, end: int, name: str | None = None) -> None:
        text = "".join(self.decl_text)
        start = self.comment_start or self.decl_start or end
        scope = "::".join(ns for ns in self.namespaces if ns)
        name = name or _name_of(text)
        keyword, _, bare = name.rpartition(" ")  # "struct X" -> "struct AscendC::X"
        qualified = f"{scope}::{bare}" if scope and bare else bare
        self.decls.append(_Decl(start, end, f"{keyword} {qualified}".strip()))
        self.decl_text, self.decl_start, self.comment_start, self.await_semicolon = [], None, None, False

    def begin(self, line: int, ch: str) -> None:
        if self.decl_start is None:
            self.decl_start = line
        if not self.opaque:
            self.decl_text.append(ch)

    def run(self) -> list[_Decl]:
        text, i, line, n = self.text, 0, 1, len(self.text)
        at_line_start = True
        while i < n:
            ch = text[i]
            two = text[i:i + 2]
            if two == "//" or two == "/*":
                end = text.find("\n", i) if two == "//" else text.find("*/", i + 2) + 2
                end = n if end <= 1 or end == -1 else end
                if self.decl_start is None and self.comment_start is None:
                    self.comment_start = line
                line += text.count("\n", i, end)
                i = end
                continue
            if ch in "\"'":
                end = _string_end(text, i)
                self.begin(line, text[i:end] if not self.opaque else "")
                line += text.count("\n", i, end)
                i = end
                continue
            if ch == "#" and at_line_start and not self.opaque:
                end = _directive_end(text, i)
                directive = text[i:end]
                match = re.match(r"#\s*define\s+(\w+)", directive)
                if match:
                    self.decl_start = self.decl_start or line
                    self.emit(line + directive.count("\n"), match.group(1))
                else:
                    self.comment_start = None
                line += directive.count("\n")
                i = end
                continue
            if ch == "\n":
                line += 1
                at_line_start = True
                i += 1
                continue
            if not ch.isspace():
                at_line_start = False
            self.step(ch, line)
            i += 1
        return self.decls

    def step(self, ch: str, line: int) -> None:
        if ch == "{":
            if self.opaque:
                self.opaque += 1
                return
            head = "".join(self.decl_text)
            transparent = _TRANSPARENT.match(head)
            if transparent:
                self.namespaces.append((transparent.group(1) or "").strip() or None)
                self.decl_text, self.decl_start, self.comment_start = [], None, None
                return
            self.begin(line, ch)
            self.opaque = 1
            # A class/enum body or a braced initializer ends at `;`; a function body ends at its `}`.
            before_params = head.split("(")[0]
            self.await_semicolon = "=" in before_params or bool(_RECORD.search(before_params))
            return
        if ch == "}":
            if self.opaque:
                self.opaque -= 1
                if not self.opaque:
                    self.decl_text.append("}")
                    if not self.await_semicolon:
                        self.emit(line)
            elif self.namespaces:
                self.namespaces.pop()
                self.decl_text, self.decl_start, self.comment_start = [], None, None
            return
        if ch == ";" and not self.opaque:
            if self.decl_start is not None:
                self.emit(line)
            return
        if not ch.isspace():
            self.begin(line, ch)
        elif not self.opaque and self.decl_text:
            self.decl_text.append(" ")


def _string_end(text: str, i: int) -> int:
    quote, j = text[i], i + 1
    while j < len(text) and text[j] != quote and text[j] != "\n":
        j += 2 if text[j] == "\\" else 1
    return min(j + 1, len(text))


def _directive_end(text: str, i: int) -> int:
    j = i
    while True:
        end = text.find("\n", j)
        if end == -1:
            return len(text)
        if text[end - 1] != "\\":
            return end
        j = end + 1


def _name_of(decl: str) -> str:
    if _TEMPLATE_PREFIX.match(decl):
        depth, j = 0, decl.index("<")
        for j in range(decl.index("<"), len(decl)):
            depth += {"<": 1, ">": -1}.get(decl[j], 0)
            if depth == 0:
                break
        decl = decl[j + 1:]
    head = decl.split("{")[0]
    alias = re.match(r"\s*using\s+(\w+)\s*=", head)
    if alias:
        return alias.group(1)
    paren = head.find("(")
    record = _RECORD.search(head)
    if record and (paren == -1 or record.start() < paren) and "=" not in head[: record.start()]:
        return f"{record.group(1)} {record.group(2)}"
    if paren > 0:
        before = head[:paren].rstrip()
        if before.endswith("operator") or re.search(r"operator\s*\S+$", before):
            return "operator" + before.split("operator")[-1].strip()
        idents = _IDENT.findall(before)
        if idents:
            return idents[-1] + "()"
    idents = _IDENT.findall(head.split("=")[0])
    return idents[-1] if idents else ""


def split_cpp(text: str) -> list[Section]:
    lines = text.split("\n")
    sections: list[Section] = []
    group: list[_Decl] = []

    def body(decls: list[_Decl]) -> str:
        return "\n".join(lines[decls[0].start - 1: decls[-1].end]).strip()

    def flush() -> None:
        if group:
            names = [d.name for d in group if d.name]
            heading = ", ".join(names[:5]) + (", …" if len(names) > 5 else "")
            sections.extend(split_long(Section(heading, body(group), group[0].start, group[-1].end)))
            group.clear()

    for decl in _Scanner(text).run():
        if group and len(body([*group, decl])) > MAX_CHARS:
            flush()
        group.append(decl)
    flush()
    return [s for s in sections if s.text]
