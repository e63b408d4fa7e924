"""What the linter needs to know about a C++ file: every call or brace-initialisation site (name,
qualifier, receiver, template arguments, argument count), the functions the file defines itself,
the variables declared with a known AscendC class type, and the spans inside template brackets."""
from __future__ import annotations

from dataclasses import dataclass, field

from kernelwright.tools.lint.tokens import Token, Tokens

# Words that can precede a call in an expression; any other identifier before `name(` means a
# declaration (`void Foo(`, `DataCopyParams p(`).
EXPRESSION_WORDS = frozenset("return else case throw new delete co_return co_yield co_await do sizeof "
                             "not and or xor bitand bitor compl".split())
NOT_NAMES = frozenset("if for while switch return sizeof alignof decltype static_cast reinterpret_cast "
                      "const_cast dynamic_cast new delete catch operator template typename alignas noexcept "
                      "static_assert throw case else do using namespace struct class enum union typedef "
                      "explicit constexpr defined".split())
_DEFINITION_FOLLOWERS = frozenset(["{", ";", ":", "const", "override", "noexcept", "->", "final", "="])


@dataclass
class Site:
    """A call `name(...)` / `name<...>(...)` or a brace initialisation `name{...}`."""

    name: str
    line: int
    col: int
    index: int = 0  # token index of the name
    qualifier: str | None = None  # "AscendC", "std", "" (leading ::); None when unqualified
    receiver: str | None = None  # `q` in `q.AllocTensor()`; "" when the receiver is an expression
    template_args: list[str] | None = None
    args: int = 0
    brace: bool = False  # `X{...}` rather than `X(...)`
    declared_type: str | None = None  # `DataCopyParams` in `DataCopyParams p{...}` (name is then `p`)
    defines: bool = False  # `void Foo(...) {` or a declaration of Foo


@dataclass(frozen=True)
class Variable:
    name: str
    type: str  # the last name of the declared type (`TQue`, `TilingContext`, `int`, ...)
    index: int  # token index of the declarator
    scope: tuple[int, int]  # token range where the name is visible


@dataclass
class Structure:
    sites: list[Site] = field(default_factory=list)
    defined: set[str] = field(default_factory=set)
    variables: list[Variable] = field(default_factory=list)
    in_template: set[int] = field(default_factory=set)  # token indices inside <...> of a template

    def type_of(self, name: str, at: int) -> str | None:
        """The declared type of `name` as seen from token `at` (innermost scope, latest declaration)."""
        visible = [v for v in self.variables if v.name == name and v.scope[0] <= at <= v.scope[1]]
        if not visible:
            return None
        return max(visible, key=lambda v: (v.scope[0], v.index if v.index < at else -1)).type


def _match(tokens: list[Token], i: int, open_: str, close: str) -> int | None:
    depth = 0
    for j in range(i, len(tokens)):
        text = tokens[j].text
        if text == open_:
            depth += 1
        elif text == close:
            depth -= 1
            if depth == 0:
                return j
    return None


def match_angle(tokens: list[Token], i: int) -> int | None:
    """Index of the `>` closing the `<` at i, if it looks like a template argument list."""
    depth, j, limit = 0, i, min(len(tokens), i + 200)
    while j < limit:
        text = tokens[j].text
        nxt = tokens[j + 1].text if j + 1 < len(tokens) else ""
        if text == "<":
            depth += 1
        elif text == ">":
            depth -= 1
            if depth == 0:
                return j
        elif text in ("(", "["):
            end = _match(tokens, j, text, ")" if text == "(" else "]")
            if end is None:
                return None
            j = end
        elif text in (";", "{", "}", ")", "]") or (text, nxt) in (("&", "&"), ("|", "|"), ("=", "=")):
            return None  # a statement boundary or a logical operator: this `<` is a comparison
        j += 1
    return None


def _split_top(tokens: list[Token], start: int, end: int, angles: dict[int, int]) -> list[list[Token]]:
    """Split tokens[start:end] at commas not nested in (), [], {} or template <>."""
    parts: list[list[Token]] = [[]]
    j = start
    while j < end:
        text = tokens[j].text
        if text in ("(", "[", "{"):
            close = _match(tokens, j, text, {"(": ")", "[": "]", "{": "}"}[text])
            close = end - 1 if close is None or close >= end else close
            parts[-1].extend(tokens[j:close + 1])
            j = close + 1
            continue
        if text == "<" and j in angles and angles[j] < end:
            parts[-1].extend(tokens[j:angles[j] + 1])
            j = angles[j] + 1
            continue
        if text == ",":
            parts.append([])
        else:
            parts[-1].append(tokens[j])
        j += 1
    return [p for p in parts if p] if any(parts) else []


def analyse(toks: Tokens) -> Structure:
    tokens = toks.items
    out = Structure(defined=set(toks.macros))
    angles: dict[int, int] = {}
    for i, tok in enumerate(tokens):
        if tok.text == "<" and i > 0 and tokens[i - 1].kind == "ident" and tokens[i - 1].text not in NOT_NAMES:
            end = match_angle(tokens, i)
            if end is not None:
                angles[i] = end
                out.in_template.update(range(i + 1, end))
    for i, tok in enumerate(tokens):
        if tok.kind != "ident" or tok.text in NOT_NAMES:
            continue
        j = i + 1
        template_args = None
        if j < len(tokens) and tokens[j].text == "<" and j in angles:
            template_args = [" ".join(t.text for t in part).replace(" :: ", "::") for part in _split_top(tokens, j + 1, angles[j], angles)]
            j = angles[j] + 1
        if j >= len(tokens) or tokens[j].text not in ("(", "{"):
            continue
        opener = tokens[j].text
        close = _match(tokens, j, opener, ")" if opener == "(" else "}")
        if close is None:
            continue
        site = Site(tok.text, tok.line, tok.col, index=i, template_args=template_args, brace=opener == "{",
                    args=len(_split_top(tokens, j + 1, close, angles)))
        _place(tokens, i, close, site)
        if site.defines:
            out.defined.add(site.name)
        out.sites.append(site)
    out.variables = _declarations(tokens, angles)
    return out


def _place(tokens: list[Token], i: int, close: int, site: Site) -> None:
    """Fill qualifier/receiver/declaration facts from the tokens around the name at i."""
    prev = tokens[i - 1].text if i > 0 else ""
    if prev == "template" and i > 1 and tokens[i - 2].text in (".", "->"):  # x.template Get<T>()
        i, prev = i - 1, tokens[i - 2].text
    if prev in (".", "->"):
        before = tokens[i - 2] if i > 1 else None
        site.receiver = before.text if before is not None and before.kind == "ident" else ""
        return
    if prev == "::":
        parts, k = [], i - 1
        while k > 0 and tokens[k].text == "::" and tokens[k - 1].kind == "ident":
            parts.insert(0, tokens[k - 1].text)
            k -= 2
        site.qualifier = "::".join(parts)
        i = k + 1  # the first token of the qualified name, for the declaration test below
        prev = tokens[i - 1].text if i > 0 else ""
    type_index = _type_before(tokens, i)
    if type_index is None:
        return
    after = tokens[close + 1].text if close + 1 < len(tokens) else ""
    if tokens[close].text == ")" and after not in _DEFINITION_FOLLOWERS:
        return  # `x = a * Foo(b) + c`: an expression after all
    site.defines = True
    site.declared_type = tokens[type_index].text


def _type_before(tokens: list[Token], i: int) -> int | None:
    """Index of the type name when tokens[i] is the declarator of a declaration, else None."""
    k = i - 1
    while k >= 0 and tokens[k].text in ("*", "&", "const", "volatile", "inline", "static", "constexpr"):
        k -= 1
    if k < 0:
        return None
    tok = tokens[k]
    if tok.kind == "ident":
        return None if tok.text in EXPRESSION_WORDS else k
    if tok.text == ">":  # `LocalTensor<half> x(` or `Foo<T> Bar(`: find the template's name
        depth = 0
        for m in range(k, -1, -1):
            depth += {">": 1, "<": -1}.get(tokens[m].text, 0)
            if depth == 0:
                return m - 1 if m > 0 and tokens[m - 1].kind == "ident" else None
    return None


def _enclosing(tokens: list[Token]) -> tuple[list[tuple[int, int]], list[tuple[int, int] | None]]:
    """For every token: the innermost enclosing {...} (the whole file at top level) and the innermost
    enclosing (...) if any, as (open, close) token indices."""
    closing: dict[int, int] = {}
    stack: list[int] = []
    for i, tok in enumerate(tokens):
        if tok.text in ("{", "("):
            stack.append(i)
        elif tok.text in ("}", ")") and stack:
            closing[stack.pop()] = i
    braces: list[tuple[int, int]] = []
    parens: list[tuple[int, int] | None] = []
    brace_stack: list[int] = []
    paren_stack: list[int] = []
    for i, tok in enumerate(tokens):
        if tok.text == "}" and brace_stack:
            brace_stack.pop()
        if tok.text == ")" and paren_stack:
            paren_stack.pop()
        braces.append((brace_stack[-1], closing.get(brace_stack[-1], len(tokens))) if brace_stack else (0, len(tokens)))
        parens.append((paren_stack[-1], closing.get(paren_stack[-1], len(tokens))) if paren_stack else None)
        if tok.text == "{":
            brace_stack.append(i)
        elif tok.text == "(":
            paren_stack.append(i)
    return braces, parens


def _declarations(tokens: list[Token], angles: dict[int, int]) -> list[Variable]:
    """Variables and parameters: `Type [<...>] [*&const] name` followed by , ; = ( { [ or )."""
    braces, parens = _enclosing(tokens)
    out: list[Variable] = []
    for i, tok in enumerate(tokens):
        if tok.kind != "ident" or tok.text in NOT_NAMES or i + 1 >= len(tokens):
            continue
        if tokens[i + 1].text not in (",", ";", "=", "(", "{", "[", ")"):
            continue
        type_index = _type_before(tokens, i)
        if type_index is None or tokens[type_index].text in NOT_NAMES:
            continue
        type_name = tokens[type_index].text
        if type_name == "auto":  # `auto p = platform_ascendc::PlatformAscendC(...)`: the initializer's type
            k = i + 2
            while k + 1 < len(tokens) and tokens[k + 1].text == "::":
                k += 2
            if tokens[i + 1].text != "=" or k >= len(tokens) or tokens[k].kind != "ident":
                continue
            type_name = tokens[k].text
        scope = braces[i]
        paren = parens[i]
        if paren is not None:  # a parameter: visible in the function body that follows `)`
            body = paren[1] + 1
            while body < len(tokens) and tokens[body].text in ("const", "override", "noexcept", "final"):
                body += 1
            if body >= len(tokens) or tokens[body].text != "{":
                continue
            scope = (body, braces[body + 1][1] if body + 1 < len(tokens) else len(tokens))
        out.append(Variable(tok.text, type_name, i, scope))
        k = i + 1  # more declarators of the same type: `TQue<...> inQueueX, inQueueY;`
        while k + 2 < len(tokens) and tokens[k].text == "," and tokens[k + 1].kind == "ident" \
                and tokens[k + 2].text in (",", ";", "=", "{", "[") and paren is None:
            out.append(Variable(tokens[k + 1].text, type_name, k + 1, scope))
            k += 2
    return out
