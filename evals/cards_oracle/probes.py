"""The probe file: one C++ translation unit per side (kernel or host) holding, for every card, small
probes whose compiler diagnostics answer one question each.

- exists / cover: does the name (a covered name: on either side) exist (`(void)NS::Name;`, or
  `#ifdef` for a macro)?
- arity k: does some overload accept k arguments? (`NS::Name(a, ...)` with k values of a type that
  converts to any number, nothing else: a note "requires N arguments" rejects k, any other outcome
  accepts it; a struct's implicit copy constructor cannot take such a value, so it does not count)
- member k: the same for `obj->Method(a, ...)` on the card's class (or its `probe_as` types)
- usage / misuse: the card's code blocks, which must compile / must fail with the quoted diagnostics
- redecl: each Signatures declaration redeclared `static`, defaults kept; the compiler objects ("static
  declaration of 'X' follows non-static declaration", "redefinition of default argument") exactly when
  the headers declare that same function. These come last so that a card's invented overload cannot
  make another probe compile."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from kernelwright.evals.cards_oracle.cardcode import Block, Decl, Misuse, declarations, misuses, usage_blocks
from kernelwright.knowledge.models import ApiCard
from kernelwright.tools.lint.tokens import tokenize

MAX_ARGS = 12
MACRO_NOTE = "kw-oracle: a macro in these headers"  # a declared function that the headers #define
_MACRO = re.compile(r"^[A-Z][A-Z0-9_]*$")
PRELUDE = """#include <type_traits>
#pragma clang diagnostic error "-Wc++11-narrowing"  // off for the headers (they narrow), an error as in bisheng here
struct kw_any {  // converts to any arithmetic parameter type
    template <class T, class = typename std::enable_if<std::is_arithmetic<T>::value>::type> operator T() const;
};
"""


@dataclass
class Probe:
    card: str
    kind: str                  # exists | cover | arity | member | usage | misuse | redecl
    name: str = ""
    count: int = -1            # arguments passed (arity and member probes)
    owner: str = ""            # the class type (member probes)
    first: int = 0             # line range in the probe file
    last: int = 0
    card_line: int = 0         # where the probed text is in the card file
    line_map: dict[int, int] = field(default_factory=dict)   # probe-file line -> card-file line
    case: Misuse | None = None


@dataclass
class ProbeFile:
    side: str
    includes: list[str]
    lines: list[str] = field(default_factory=list)
    probes: list[Probe] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.lines = [f'#include "{h}"' for h in self.includes] + PRELUDE.splitlines()

    def add(self, text: str, probe: Probe, code_first: int = 0, code_line: int = 0) -> None:
        """Append `text`; its line `code_first` (0-based) onwards maps to card line `code_line` onwards."""
        probe.first = len(self.lines) + 1
        chunk = text.split("\n")
        self.lines.extend(chunk)
        probe.last = len(self.lines)
        if code_line:
            probe.line_map = {probe.first + i: code_line + i - code_first for i in range(code_first, len(chunk))}
        self.probes.append(probe)

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


def _qualified(card: ApiCard, name: str) -> str:
    """`NS::name` in the card's namespace, unless the card spells it qualified (`ge::GRAPH_SUCCESS`)."""
    if "::" in name:
        return name
    return f"::{name}" if card.namespace == "global" else f"{card.namespace}::{name}"


def _exists(card: ApiCard, name: str, n: int) -> str:
    expr = f"void kw_e{n}() {{ (void){_qualified(card, name)}; }}"
    bare = name.rsplit("::", 1)[-1]
    return f"#ifndef {bare}\n{expr}\n#endif" if _MACRO.match(bare) else expr


def _args(k: int) -> str:
    return ", ".join(["a"] * k)


def _code(block: Block, side: str, n: int, tag: str) -> tuple[str, int]:
    """A code block wrapped for compiling; returns the text and the 0-based line where the code starts."""
    toks = [t.text for t in tokenize(f"{block.given}\n{block.code}").items]
    if any(toks.count(a) != toks.count(b) for a, b in ("{}", "()", "[]")):  # would swallow the probes after it
        return 'static_assert(sizeof(int) == 0, "unbalanced brackets in this code block");', 0
    # host code opens `namespace optiling`/`ops` around its definitions: inside the wrapper those are new
    # namespaces, so the real ones are made visible too
    using = "using namespace AscendC; " if side == "kernel" else "using namespace ::optiling; using namespace ::ops; "
    if block.scope == "namespace" and re.match(r"\s*namespace \w+", block.code.lstrip("\n")):
        # it opens a real namespace (`namespace optiling {`): compiled as written, at file scope
        return f"{block.given}\n{block.code}", 1
    if block.scope == "namespace":
        head = f"namespace kw_{tag}{n} {{ {using}\n{block.given}"
        return f"{head}\n{block.code}\n}}", 2
    head = f"namespace kw_{tag}{n} {{ {using}void body() {{\n{block.given}"
    return f"{head}\n{block.code}\n}} }}", 2


def build(cards: list[ApiCard], side: str, includes: list[str], version: str = "", arch: str = "") -> ProbeFile:
    out = ProbeFile(side, includes)
    n = 0
    redecls: list[tuple[ApiCard, Decl]] = []
    for card in cards:  # covered names are looked for on both sides (a kernel API's host-side helpers)
        for name in card.covers:
            n += 1
            out.add(_exists(card, name, n), Probe(card.name, "cover", name))
    for card in (c for c in cards if c.side == side):
        for name in dict.fromkeys([card.name, *card.aliases]):
            n += 1
            out.add(_exists(card, name, n), Probe(card.name, "exists", name))
        if card.kind == "invented":  # its claim is only that the name does not exist
            continue
        if card.arity and not _MACRO.match(card.name):
            for name in [card.name, *card.aliases]:
                # a class template's constructors are probed on a concrete type (no deduction guides)
                callee = card.probe_as[0] if card.probe_as and name == card.name else _qualified(card, name)
                for k in range(MAX_ARGS + 1):
                    n += 1
                    out.add(f"void kw_a{n}() {{ kw_any a; (void){callee}({_args(k)}); }}",
                            Probe(card.name, "arity", name, k))
        methods = card.methods_for(version) if version else card.methods
        owners = card.probe_as or ([_qualified(card, card.name)] if methods and not card.template_params else [])
        for owner in owners:
            for method in methods:
                for k in range(MAX_ARGS + 1):
                    n += 1
                    out.add(f"void kw_m{n}() {{ kw_any a; {owner}* o = nullptr; o->{method}({_args(k)}); }}",
                            Probe(card.name, "member", method, k, owner))
        for block in usage_blocks(card, version, arch):
            n += 1
            text, first = _code(block, side, n, "u")
            out.add(text, Probe(card.name, "usage", card_line=block.line), first, block.line)
        for case in misuses(card, version, arch):
            for block in case.blocks:
                n += 1
                text, first = _code(block, side, n, "x")
                out.add(text, Probe(card.name, "misuse", case.heading, card_line=block.line, case=case),
                        first, block.line)
        redecls += [(card, d) for d in declarations(card, version, arch) if not d.member]
    for card, decl in redecls:
        namespace = "" if card.namespace == "global" else card.namespace
        text = f"namespace {namespace} {{ {decl.redeclaration} }}" if namespace else decl.redeclaration
        text = f'#ifdef {decl.name}\nstatic_assert(sizeof(int) == 0, "{MACRO_NOTE}");\n#else\n{text}\n#endif'
        out.add(text, Probe(card.name, "redecl", decl.name, card_line=decl.line))
    return out
