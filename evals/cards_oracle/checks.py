"""Read the probes' diagnostics as answers and compare them with what each card claims.

A card agrees with a version's headers when: every name it declares exists there with the status
its front matter gives (current / deprecated / absent); its argument counts (front matter `arity`
and `methods`, the linter's data) are exactly the counts some real overload accepts; every
declaration of its Signatures block is a real declaration; its Usage code compiles; and each
misuse case's code fails with the diagnostics its prose quotes."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from kernelwright.evals.cards_oracle.compiler import Diag
from kernelwright.evals.cards_oracle.probes import MAX_ARGS, Probe
from kernelwright.knowledge.models import ApiCard

_ARITY_NOTE = re.compile(r"requires (?:at (?:least|most) )?(?:\d+|single|no) arguments?(?: '\w+')?, but (?:\d+|no) "
                         r"(?:arguments? )?(?:was|were) provided|"
                         r"\(the implicit (?:copy|move) (?:constructor|assignment operator)\)|"
                         r"candidate constructor \(the implicit default constructor\) not viable: requires 0")
_NO_MATCH = re.compile(r"no matching (?:member )?function for call to|no matching constructor for initialization|"
                       r"no viable constructor or deduction guide|no matching conversion for functional-style cast")
_WRONG_COUNT = re.compile(r"too (?:many|few) arguments (?:to function call|provided to function-like macro)")
_DEPRECATED = re.compile(r"deprecated|has been updated, please use", re.I)
_DEPRECATED_CHECK = re.compile(r"\(deprecated, use \w+ instead\)")


@dataclass
class Finding:
    check: str       # exists | status | arity | member | signature | usage | misuse | quote
    ok: bool
    message: str
    card_line: int = 0


@dataclass
class CardResult:
    card: ApiCard
    version: str
    status: str = "current"                  # what the headers say about the card's main name
    findings: list[Finding] = field(default_factory=list)

    @property
    def disagreements(self) -> list[Finding]:
        return [f for f in self.findings if not f.ok]


def missing(name: str, diags: list[Diag]) -> bool:
    pattern = re.compile(rf"no (?:member|type|template) named '{re.escape(name)}' in|use of undeclared identifier "
                         rf"'{re.escape(name)}'|unknown type name '{re.escape(name)}'|no member named '{re.escape(name)}'")
    return any(pattern.search(d.message) for d in diags if d.severity != "note")


def accepted(diags: list[Diag]) -> str:
    """Does some overload take this many arguments (see probes.py)? "yes", "no", or "deprecated" when
    only overloads the headers mark deprecated do."""
    errors = [d for d in diags if d.severity in ("error", "fatal error")]
    if not errors:
        return "yes"
    verdict = "no"
    for d in errors:
        if _WRONG_COUNT.search(d.message):
            continue
        if not _NO_MATCH.search(d.message):
            return "yes"   # resolution got past the argument count (ambiguity, a failed static_assert, ...)
        fitting = [(path, line) for path, line, m in d.notes
                   if m.startswith("candidate") and "is_arithmetic" not in m and not _ARITY_NOTE.search(m)]
        if any(not deprecated_at(path, line) for path, line in fitting):
            return "yes"
        verdict = "deprecated" if fitting else verdict
    return verdict


@lru_cache(maxsize=4096)
def _lines(path: str) -> tuple[str, ...]:
    try:
        return tuple(Path(path).read_text(errors="replace").split("\n"))
    except OSError:
        return ()


def deprecated_at(path: str, line: int) -> bool:
    """Does the header mark the declaration at path:line deprecated: its leading comment or attribute
    ("... has been updated, please use X instead", `[[deprecated]]`), or a "(deprecated, use X instead)"
    check message in its body?"""
    lines = _lines(path)
    if not lines or line > len(lines):
        return False
    lead = [lines[line - 1]]
    for k in range(line - 1, max(line - 30, 0), -1):
        text = lines[k - 1].strip()
        if text.endswith((";", "}", "{")):
            break
        lead.append(text)
    body = []
    for k in range(line, min(line + 40, len(lines))):
        if lines[k].startswith("}") or lines[k].lstrip().startswith("template"):
            break
        body.append(lines[k])
    return bool(_DEPRECATED.search("\n".join(lead)) or _DEPRECATED_CHECK.search("\n".join(body)))


def header_locations(diags: list[Diag], main: str) -> list[tuple[str, int]]:
    """Where the headers declare the candidates clang names in its notes."""
    locs = []
    for d in diags:
        for path, line, message in d.notes:
            if path != main and (message.startswith(("candidate", "possible target")) or "previous" in message):
                locs.append((path, line))
    return locs


def counts(probes: list[tuple[Probe, list[Diag]]]) -> tuple[set[int], set[int]]:
    """(argument counts some current overload takes, counts only deprecated overloads take)."""
    answers = [(p.count, accepted(diags)) for p, diags in probes]
    return {n for n, a in answers if a == "yes"}, {n for n, a in answers if a == "deprecated"}


def compare_counts(what: str, listed: list[int], real: tuple[set[int], set[int]]) -> str:
    """'' when the card's counts are the accepted ones (counts above MAX_ARGS are not probed; counts
    only deprecated overloads take may be listed or not)."""
    current, deprecated = real
    claimed = {n for n in listed if n <= MAX_ARGS}
    extra, lacking = sorted(claimed - current - deprecated), sorted(current - claimed)
    parts = []
    if extra:
        parts.append(f"lists {extra} but no overload takes that many")
    if lacking:
        parts.append(f"omits {lacking}, which real overloads take (lint would reject valid calls)")
    old = f"; deprecated overloads take {sorted(deprecated)}" if deprecated else ""
    return f"{what}: {'; '.join(parts)} (headers accept {sorted(current) or 'none'}{old})" if parts else ""


def quote_pattern(quote: str) -> re.Pattern:
    """A quoted diagnostic as a pattern: `...` and standalone N/M stand for anything; address-space
    qualifiers (`__ubuf__ half *`, as the NPU compiler prints) are dropped, the CPU-debug build has none."""
    quote = re.sub(r"__(?:ubuf|gm|cbuf|ca|cb|cc)__ ", "", quote)
    text = re.escape(quote.removeprefix("error: ").removeprefix("note: "))
    text = text.replace(r"\.\.\.", ".*?")
    # clang 16 prints `static assertion failed`, older clangs (bisheng's among them) `static_assert failed`
    text = re.sub(r"static_assert\\ failed|static\\ assertion\\ failed", "(?:static_assert|static assertion) failed", text)
    text = re.sub(r"\b[NM]\b", r"\\d+", text)
    return re.compile(text)


# The CPU-debug headers implement half and bfloat16_t as classes; the NPU compiler (and the cards) name
# the built-in types.
_CPU_SPELLINGS = (("float16::Fp16T", "half"), ("bfloat16::Bf16T", "bfloat16_t"))


def quote_found(quote: str, diags: list[Diag]) -> bool:
    pattern = quote_pattern(quote)
    for d in diags:
        text = " ".join(d.text().split())
        for cpu, npu in _CPU_SPELLINGS:
            text = text.replace(cpu, npu)
        text_plain = re.sub(r" \(aka '[^']*'\)", "", text)  # clang's desugared spelling differs by build
        if pattern.search(text) or pattern.search(text_plain):
            return True
    return False
