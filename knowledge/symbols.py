"""Find the AscendC symbols a query or a compiler message names, most telling first:
names quoted in diagnostics, then `AscendC::X`, then members, then plain mentions of known names."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Origin = Literal["diagnostic", "qualified", "member", "undeclared", "mention"]


@dataclass(frozen=True)
class SymbolRef:
    name: str
    origin: Origin
    owner: str = ""  # the class, for members (`AllocTensor` in `TBuf`)


_Q = r"[\w:]*?"  # an optional namespace/class qualifier inside the quotes
# (pattern, origin); "member" patterns capture (class, member), "member!" ones (member, class).
_PATTERNS: list[tuple[re.Pattern, str]] = [
    (re.compile(r"no member named '(\w+)' in namespace '\w+'"), "diagnostic"),
    (re.compile(r"'(\w+)' is not a member of '(?:AscendC|optiling|gert|ops|platform_ascendc)'"), "diagnostic"),
    (re.compile(rf"no member named '(\w+)' in '(?:const )?{_Q}(\w+)(?=[<'])"), "member!"),
    (re.compile(rf"'(?:class |struct )?{_Q}(\w+)(?:<[^']*>)?' has no member named '(\w+)'"), "member"),
    (re.compile(rf"no matching (?:member )?function for call to '{_Q}(\w+)'"), "diagnostic"),
    (re.compile(rf"no matching constructor for initialization of '{_Q}(\w+)(?=[<'])"), "diagnostic"),
    (re.compile(rf"template arguments? for class template '{_Q}(\w+)(?=[<'])"), "diagnostic"),
    (re.compile(r"Failed to (?:check|pass) [\w ]*?\bin (\w+)"), "diagnostic"),
    (re.compile(r"Failed to pass (\w+) "), "diagnostic"),
    (re.compile(r"\b(?!AscendC\b|std\b)([A-Z]\w*)::([A-Z]\w*)\("), "member"),
    (re.compile(r"use of undeclared identifier '(\w+)'"), "undeclared"),
    (re.compile(r"unknown type name '(\w+)'"), "undeclared"),
    (re.compile(r"'(\w+)' (?:was not declared in this scope|does not name a type)"), "undeclared"),
    (re.compile(r"\bAscendC::(\w+)"), "qualified"),
]
_MEMBER_CALL = re.compile(r"(?:\.|->)\s*([A-Z]\w*)\s*(?:<[^<>()]*>)?\s*\(")
_WORD = re.compile(r"\b[A-Za-z_]\w*\b")
_CODE_CONTEXT = re.compile(r"\s*[(<>*&]")


def find_symbols(text: str, known: set[str] | frozenset[str] = frozenset(),
                 code_only: set[str] | frozenset[str] = frozenset()) -> list[SymbolRef]:
    """Symbols in order of evidence; `known` (catalog names) enables plain mentions, except that
    names in `code_only` (ordinary words such as the PyTorch dtype `float16`) count only in code."""
    found: list[tuple[int, int, SymbolRef]] = []  # (priority, position, ref)
    for priority, (pattern, origin) in enumerate(_PATTERNS):
        for match in pattern.finditer(text):
            if origin.startswith("member"):
                owner, name = match.group(1, 2) if origin == "member" else match.group(2, 1)
                found.append((priority, match.start(), SymbolRef(name, "member", owner)))
            else:
                found.append((priority, match.start(), SymbolRef(match.group(1), origin)))
    base = len(_PATTERNS)
    for match in _MEMBER_CALL.finditer(text):
        found.append((base, match.start(), SymbolRef(match.group(1), "member")))
    for match in _WORD.finditer(text):
        word = match.group(0)
        if word in known and _looks_like_code(word, text, match, word in code_only):
            found.append((base + 1, match.start(), SymbolRef(word, "mention")))
    found.sort(key=lambda item: (item[0], item[1]))
    seen: set[tuple[str, str]] = set()
    refs: list[SymbolRef] = []
    for _, _, ref in found:
        if (ref.name, ref.owner) not in seen:
            seen.add((ref.name, ref.owner))
            refs.append(ref)
    return refs


def _looks_like_code(word: str, text: str, match: re.Match, code_only: bool) -> bool:
    """CamelCase and snake_case names count anywhere; plain words (`half`, `printf`, `float16`)
    only in code: quoted, inside <...>, or followed by ( < > * &."""
    if not code_only and any(c.isupper() or c.isdigit() or c == "_" for c in word):
        return True
    before = text[match.start() - 1: match.start()]
    return (before != "" and before in "'`\"<") or bool(_CODE_CONTEXT.match(text, match.end()))
