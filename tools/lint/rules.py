"""The lint rules. Every fact they check (names, argument counts, CANN versions, template needs,
class members, wrong dtype names) comes from the API cards' front matter via the catalog; the cards'
arities, members and per-version availability are checked against the real headers by
`python -m kernelwright.evals.cards_oracle`."""
from __future__ import annotations

import re
from collections.abc import Generator, Iterator

from kernelwright.knowledge.catalog import ApiCatalog
from kernelwright.knowledge.models import CANN_VERSIONS, ApiCard
from kernelwright.knowledge.similarity import similarity
from kernelwright.tools.lint.diagnostics import LintDiagnostic
from kernelwright.tools.lint.structure import Site, Structure
from kernelwright.tools.lint.tokens import Token


def _counts(counts: list[int]) -> str:
    return " or ".join(map(str, counts))


class Rules:
    def __init__(self, catalog: ApiCatalog, filename: str, cann: str):
        self.catalog = catalog
        self.filename = filename
        self.cann = cann

    def _diag(self, rule: str, where: Site | Token, symbol: str, message: str, hint: str = "",
              suggestions: list[str] | None = None) -> LintDiagnostic:
        return LintDiagnostic(rule=rule, file=self.filename, line=where.line, col=where.col, symbol=symbol,
                              message=message, hint=hint, suggestions=suggestions or [])

    def check_site(self, site: Site, structure: Structure) -> Iterator[LintDiagnostic]:
        if site.receiver is not None:
            yield from self._member(site, structure)
        elif site.declared_type is not None:
            yield from self._declaration(site)
        elif site.qualifier == "AscendC" or (site.qualifier is None and site.name not in structure.defined):
            yield from self._free_call(site)

    def _free_call(self, site: Site) -> Iterator[LintDiagnostic]:
        card = self.catalog.get(site.name)
        if card is None:
            # Only calls: `AscendC::X{...}` builds one of the many parameter structs the cards do not list.
            if site.qualifier == "AscendC" and not site.brace:
                near = [s.name for s in self.catalog.nearest(site.name, callable_only=True, version=self.cann)]
                yield self._diag("unknown-api", site, site.name,
                                 f"'{site.name}' is not an AscendC API (the compiler will say: no member named "
                                 f"'{site.name}' in namespace 'AscendC')",
                                 f"see `kernelwright docs search {near[0]}`" if near else "", near)
            return
        if card.kind == "invented":
            yield self._diag("invented-api", site, site.name, f"'{site.name}' does not exist: {card.summary}",
                             f"use {' or '.join(card.use_instead)}; see `kernelwright docs search {card.name}`",
                             card.use_instead)
            return
        if site.name not in card.names:  # a related name the card covers: known, not checked further
            return
        if site.qualifier == "AscendC" and card.namespace != "AscendC":
            where = "the global namespace" if card.namespace == "global" else f"namespace '{card.namespace}'"
            yield self._diag("wrong-namespace", site, site.name,
                             f"'{site.name}' is declared in {where}, not in AscendC (the compiler will say: no member "
                             f"named '{site.name}' in namespace 'AscendC')",
                             f"call it as {site.name}(...)" if card.namespace == "global"
                             else f"call it as {card.namespace}::{site.name}(...)")
        if (yield from self._version(site, card)) == "absent":
            return
        yield from self._template(site, card)
        arity = card.arity_for(self.cann)
        if arity and site.args not in arity:
            yield self._diag("arity", site, site.name,
                             f"{site.name} takes {_counts(arity)} arguments, this call passes {site.args} "
                             f"(the compiler will say: no matching function for call to '{site.name}')",
                             f"see the signatures: `kernelwright docs search {card.name}`")

    def _version(self, site: Site, card: ApiCard) -> Generator[LintDiagnostic, None, str]:
        """Flag an API the target CANN version lacks or deprecates; return its status there."""
        status, other = card.status(self.cann), [v for v in CANN_VERSIONS if v != self.cann and card.holds_for(v)]
        info = card.cann[self.cann]
        replace = info.use_instead or card.use_instead
        if status == "absent" and self.cann == "8.x":
            yield self._diag("cann9-only", site, site.name,
                             f"'{site.name}' exists only from CANN 9 (CANN 8.x compilers report: no member named "
                             f"'{site.name}' in namespace 'AscendC')", info.note or card.summary, replace)
        elif status == "absent":
            yield self._diag("not-in-cann9", site, site.name,
                             f"'{site.name}' is not in CANN {self.cann} (it exists in CANN {', '.join(other)})",
                             info.note or f"use {' or '.join(replace)}", replace)
        elif status == "deprecated":
            diag = self._diag("deprecated", site, site.name, f"'{site.name}' is deprecated in CANN {self.cann}"
                              + (f": use {' or '.join(replace)}" if replace else ""), info.note, replace)
            yield diag.model_copy(update={"severity": "warning"})
        return status

    def _template(self, site: Site, card: ApiCard) -> Iterator[LintDiagnostic]:
        if card.explicit_template and site.name == card.name and not site.template_args:
            yield self._diag("missing-template", site, site.name,
                             f"{site.name} needs an explicit template argument ({', '.join(card.template_params)})",
                             f"for example {site.name}<...>(...); see `kernelwright docs search {card.name}`")
        if card.template_arg_pattern and site.template_args and \
                not re.match(card.template_arg_pattern, site.template_args[0]):
            yield self._diag("template-arg", site, site.name,
                             f"{site.name} expects `{card.template_params[0]}` as its template argument, "
                             f"got '{site.template_args[0]}'", card.summary)

    def _declaration(self, site: Site) -> Iterator[LintDiagnostic]:
        """`DataCopyParams p{1, 256, 0, 0, 0}`: check the constructor argument count."""
        card = self.catalog.get(site.declared_type or "")
        arity = card.arity_for(self.cann) if card else []
        if card is None or not arity or card.kind != "api" or site.declared_type not in card.names:
            return
        if site.args not in arity:
            yield self._diag("arity", site, card.name,
                             f"{card.name} is built from {_counts(arity)} values, this initialisation passes "
                             f"{site.args} (the compiler will say: no matching constructor for initialization of "
                             f"'AscendC::{card.name}')", card.summary)

    def _member(self, site: Site, structure: Structure) -> Iterator[LintDiagnostic]:
        declared = structure.type_of(site.receiver or "", site.index)
        card = self.catalog.get(declared) if declared else None
        if card is None or not card.methods or declared not in card.names:
            return  # a user object, `this`, or an expression: not ours to judge
        methods = card.methods_for(self.cann)
        if site.name not in methods:
            members = sorted(methods)
            near = sorted(members, key=lambda m: -similarity(site.name, m))[:3]
            yield self._diag("unknown-member", site, site.name,
                             f"{card.name} has no member '{site.name}' ('{site.receiver}' is a {card.name})",
                             f"members: {', '.join(members)}", [m for m in near if similarity(site.name, m) >= 0.45])
            return
        if site.name in card.method_templates and not site.template_args:
            yield self._diag("missing-template", site, site.name,
                             f"{site.receiver}.{site.name}() needs the element type: {site.name}<T>() (the compiler "
                             f"will say: couldn't infer template argument 'T')", f"for example {site.name}<half>()")
        accepted = sorted(methods[site.name])
        if accepted and site.args not in accepted:
            yield self._diag("arity", site, site.name,
                             f"{site.receiver}.{site.name} takes {_counts(accepted)} arguments, this call passes {site.args}",
                             f"see `kernelwright docs search {card.name}`")

    def check_dtype_names(self, tokens: list[Token], structure: Structure) -> Iterator[LintDiagnostic]:
        """`float16`, `bfloat16`, `bool_t`, `fp16`... where a type is expected."""
        wrong = self.catalog.dtype_misnames
        for i, tok in enumerate(tokens):
            card = wrong.get(tok.text)
            if card is None or not _type_position(tokens, i, structure):
                continue
            yield self._diag("dtype-name", tok, tok.text,
                             f"'{tok.text}' is not a type in AscendC kernels; use {' or '.join(card.use_instead)}",
                             card.summary, card.use_instead)


def _type_position(tokens: list[Token], i: int, structure: Structure) -> bool:
    prev = tokens[i - 1].text if i > 0 else ""
    nxt = tokens[i + 1] if i + 1 < len(tokens) else None
    if i in structure.in_template:
        return True
    if nxt is not None and nxt.kind == "ident":  # `float16 x`
        return True
    after_next = tokens[i + 2].text if i + 2 < len(tokens) else ""
    if nxt is not None and nxt.text in ("*", "&") and after_next in (")", ">", ","):  # `(__gm__ float16*)x`
        return True
    if prev == "(" and nxt is not None and nxt.text == ")":  # `(float16)x` or `sizeof(float16)`
        before = tokens[i - 2].text if i > 1 else ""
        after = tokens[i + 2] if i + 2 < len(tokens) else None
        return before == "sizeof" or (after is not None and (after.kind != "punct" or after.text == "("))
    return False
