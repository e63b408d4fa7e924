"""What the oracle compiles from a card: the declarations of its Signatures block, the code blocks
of Usage, and each Common-misuses case (its code and the diagnostics its prose quotes).

A code block names the variables it needs in `// given: <declarations>` lines (they read as context
to a model and are compiled as the block's preamble); one that holds for one CANN version only says
so on a line `// CANN 9.x only` (or `// dav-m200 only` for one architecture), one the CPU-debug build does
not declare `// NPU build only` (unchecked). Blocks without a function or class definition at the top are
compiled as a function body, the rest at namespace scope."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from kernelwright.knowledge.models import ApiCard
from kernelwright.tools.lint.tokens import Token, tokenize

_FENCE = re.compile(r"^```(\w*)\s*$")
_GIVEN = re.compile(r"^\s*//\s*given:\s*(.*)$")
_ONLY = re.compile(r"^\s*//\s*CANN (\d+\.x) only\b")
_ARCH_ONLY = re.compile(r"^\s*//\s*(dav-[a-z0-9]+) only\b")
_NPU_ONLY = re.compile(r"^\s*//\s*NPU build only\b")  # declared only when not compiling for the CPU twin
_QUOTE = re.compile(r"`([^`]+)`")
# Quotes that claim to be what a compiler prints (not CPU-twin or NPU run-time messages).
COMPILER_QUOTE = re.compile(r"error:|no matching (?:member )?function|no member named|deduced conflicting|"
                            r"static_assert|static assertion|no viable|candidate (?:function|template|constructor)|"
                            r"couldn't infer|unknown type name|cannot be narrowed|is deprecated|undeclared identifier|"
                            r"no matching constructor|too (?:few|many) (?:template )?arguments|no known conversion")
_NAMESPACE_SCOPE = re.compile(r"^(?:template\b|class\b|struct\b|namespace\b|extern\b|BEGIN_TILING_DATA_DEF|"
                              r"REGISTER_TILING_DATA_CLASS|OP_ADD\b|static\s+ge::|__global__)")
_FUNCTION_HEAD = re.compile(r"^(?!(?:if|for|while|switch|return|else|do)\b)[\w:<>,*&\s]+?\b\w+\s*\([^;]*\)\s*"
                            r"(?:const\s*)?\{\s*$")
_DROP_IN_REDECL = {"inline", "static", "constexpr", "virtual", "explicit", "extern"}


@dataclass
class Block:
    code: str           # the code without its `// given:` lines
    given: str          # the declarations it is given
    line: int           # line of the first code line in the card file
    scope: str          # "function" or "namespace"
    version: str = ""   # "8.x" / "9.x" when the block starts `// CANN 9.x only`; "" = every version
    npu_only: bool = False  # `// NPU build only`: the CPU-debug headers the oracle compiles lack it
    arch: str = ""          # `// dav-m200 only`: holds for that architecture only


@dataclass
class Misuse:
    heading: str
    line: int
    blocks: list[Block] = field(default_factory=list)
    quotes: list[str] = field(default_factory=list)   # compiler diagnostics quoted in the prose
    elsewhere: bool = False   # its code holds for another CANN version or architecture only


@dataclass
class Decl:
    name: str
    line: int
    member: bool
    redeclaration: str = ""  # `static` redeclaration text (free functions only)


def sections(card: ApiCard) -> dict[str, tuple[int, list[str]]]:
    """`## Heading` -> (file line of its first body line, its lines)."""
    out: dict[str, tuple[int, list[str]]] = {}
    current = None
    in_fence = False
    for offset, line in enumerate(card.body.split("\n")):
        if line.startswith("```"):
            in_fence = not in_fence
        if not in_fence and line.startswith("## "):
            current = line[3:].strip()
            out[current] = (card.body_line + offset + 1, [])
        elif current is not None:
            out[current][1].append(line)
    return out


def code_blocks(lines: list[str], first_line: int) -> list[Block]:
    blocks, buf, start, lang = [], None, 0, ""
    for offset, line in enumerate(lines):
        fence = _FENCE.match(line.strip())
        if fence and buf is None:
            buf, start, lang = [], first_line + offset + 1, fence.group(1)
        elif line.strip() == "```" and buf is not None:
            if lang in ("", "cpp", "c++", "cxx"):
                blocks.append(_block(buf, start))
            buf = None
        elif buf is not None:
            buf.append(line)
    return blocks


def _block(lines: list[str], start: int) -> Block:
    given = [m.group(1) for m in map(_GIVEN.match, lines) if m]
    code = [line if not _GIVEN.match(line) else "" for line in lines]  # blanked, so line numbers still match
    scope = "function"
    depth = 0
    for line in code:
        stripped = line.strip()
        if depth == 0 and stripped and (_NAMESPACE_SCOPE.match(stripped) or _FUNCTION_HEAD.match(stripped)):
            scope = "namespace"
            break
        depth += line.count("{") - line.count("}")
    only = next((m.group(1) for m in map(_ONLY.match, lines) if m), "")
    arch = next((m.group(1) for m in map(_ARCH_ONLY.match, lines) if m), "")
    return Block("\n".join(code), " ".join(given), start, scope, only, any(map(_NPU_ONLY.match, lines)), arch)


def holds(block: Block, version: str, arch: str) -> bool:
    """Does the block apply to this CANN version and architecture ("" = any), in a CPU-debug build?"""
    return ((not version or block.version in ("", version)) and (not arch or block.arch in ("", arch))
            and not block.npu_only)


def usage_blocks(card: ApiCard, version: str = "", arch: str = "") -> list[Block]:
    start, lines = sections(card).get("Usage", (0, []))
    return [b for b in code_blocks(lines, start) if holds(b, version, arch)]


def misuses(card: ApiCard, version: str = "", arch: str = "") -> list[Misuse]:
    start, lines = sections(card).get("Common misuses", (0, []))
    cases: list[Misuse] = []
    body: list[str] = []

    def close() -> None:
        if cases:
            case = cases[-1]
            blocks = code_blocks(body, case.line + 1)
            case.blocks = [b for b in blocks if holds(b, version, arch)]
            case.elsewhere = bool(blocks) and not case.blocks
            prose, in_fence = [], False
            for line in body:
                in_fence = in_fence != line.startswith("```")
                if not in_fence and not line.startswith("```"):
                    prose.append(line)
            quotes = (" ".join(q.split()) for q in _QUOTE.findall("\n".join(prose)))
            case.quotes = [q for q in quotes if COMPILER_QUOTE.search(q)]

    for offset, line in enumerate(lines):
        if line.startswith("### "):
            close()
            cases.append(Misuse(line[4:].strip(), start + offset))
            body = []
        else:
            body.append(line)
    close()
    return cases


def declarations(card: ApiCard, version: str = "", arch: str = "") -> list[Decl]:
    """Function declarations of the Signatures blocks (those for `version`): members (inside `class X
    {...}`, or named in the card's `methods`) and free functions with their `static` redeclaration text."""
    start, lines = sections(card).get("Signatures", (0, []))
    decls: list[Decl] = []
    for block in code_blocks(lines, start):
        if not holds(block, version, arch):
            continue
        tokens = tokenize(block.code).items
        for stmt, member in _statements(tokens):
            decl = _function(stmt, member or _named_member(stmt, card), block.line)
            if decl is not None:
                decls.append(decl)
    return decls


def _named_member(stmt: list[Token], card: ApiCard) -> bool:
    return any(t.text in card.methods and k + 1 < len(stmt) and stmt[k + 1].text in ("(", "<")
               for k, t in enumerate(stmt))


def _statements(tokens: list[Token]) -> list[tuple[list[Token], bool]]:
    """Split at top-level `;` (and after a `{...}` body); statements inside `class X {...}` are members."""
    out: list[tuple[list[Token], bool]] = []
    i, stmt = 0, []
    while i < len(tokens):
        tok = tokens[i]
        if tok.text == "(":  # a parameter list, with any `= {}` defaults inside it
            end = _close(tokens, i, "(", ")")
            stmt.extend(tokens[i:end + 1])
            i = end + 1
            continue
        if tok.text == "{":
            end = _close(tokens, i, "{", "}")
            if any(t.text in ("class", "struct") for t in stmt):
                out.extend((s, True) for s, _ in _statements(_drop_access(tokens[i + 1:end])))
            stmt, i = [], end + 1
            if i < len(tokens) and tokens[i].text == ";":
                i += 1
            continue
        if tok.text == ";":
            if stmt:
                out.append((stmt, False))
            stmt = []
        else:
            stmt.append(tok)
        i += 1
    if stmt:
        out.append((stmt, False))
    return out


def _drop_access(tokens: list[Token]) -> list[Token]:
    """Member tokens without `public:`-style labels."""
    access = ("public", "private", "protected")
    return [t for k, t in enumerate(tokens)
            if not (t.text in access and k + 1 < len(tokens) and tokens[k + 1].text == ":")
            and not (t.text == ":" and k > 0 and tokens[k - 1].text in access)]


def _close(tokens: list[Token], i: int, open_: str, close: str) -> int:
    depth = 0
    for j in range(i, len(tokens)):
        depth += (tokens[j].text == open_) - (tokens[j].text == close)
        if depth == 0:
            return j
    return len(tokens) - 1


def _angle_end(tokens: list[Token], i: int) -> int:
    """Index of the `>` closing the template parameter list opened at i (parentheses skipped)."""
    depth, j = 0, i
    while j < len(tokens):
        text = tokens[j].text
        if text == "(":
            j = _close(tokens, j, "(", ")") + 1
            continue
        depth += (text == "<") - (text == ">")
        if depth == 0:
            return j
        j += 1
    return len(tokens) - 1


def _function(stmt: list[Token], member: bool, block_line: int) -> Decl | None:
    template: list[str] = []
    k = 0
    if stmt and stmt[0].text == "template" and len(stmt) > 1 and stmt[1].text == "<":
        end = _angle_end(stmt, 1)
        template = _params(stmt[2:end])
        k = end + 1
    paren = next((j for j in range(k, len(stmt)) if stmt[j].text == "(" and j > k and stmt[j - 1].kind == "ident"
                  and stmt[j - 1].text != "operator"), None)
    if paren is None or paren - 1 == k:  # no parameter list, or no return type (a macro use)
        return None
    name = stmt[paren - 1]
    if paren > 1 and stmt[paren - 2].text in ("::", "~"):
        return None  # a qualified name or a destructor: not redeclarable here
    close = _close(stmt, paren, "(", ")")
    params = _params(stmt[paren + 1:close])
    prefix = [t for t in stmt[k:paren - 1] if t.text not in _DROP_IN_REDECL]
    suffix = [t.text for t in stmt[close + 1:] if t.text in ("const", "noexcept")]
    head = f"template <{', '.join(template)}> " if stmt and stmt[0].text == "template" else ""
    text = f"{head}static {_join(prefix)} {name.text}({', '.join(params)}) {' '.join(suffix)};"
    return Decl(name.text, block_line + name.line - 1, member, "" if member else text)


def _join(tokens: list[Token]) -> str:
    """Tokens back to text, without spaces where the source had none (`&&`, `...`, `>>`)."""
    out = ""
    for k, tok in enumerate(tokens):
        prev = tokens[k - 1] if k else None
        glued = prev is not None and prev.line == tok.line and prev.col + len(prev.text) == tok.col
        out += tok.text if glued or not out else " " + tok.text
    return out


def _params(tokens: list[Token]) -> list[str]:
    """Comma-separated parameters, default values kept (redeclaring a default is itself an error that
    proves the declaration exists, and it is the only proof for `static` functions)."""
    parts: list[list[Token]] = [[]]
    depth = 0
    for tok in tokens:
        if tok.text in ("(", "[", "{", "<"):
            depth += 1
        elif tok.text in (")", "]", "}", ">"):
            depth -= 1
        if tok.text == "," and depth == 0:
            parts.append([])
        else:
            parts[-1].append(tok)
    return [_join(part) for part in parts if part]
