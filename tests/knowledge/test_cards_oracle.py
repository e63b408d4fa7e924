"""The cards oracle's own logic, without CANN headers (they cannot ship): how it reads a card's code,
how it reads clang's answers, and that every card is in a shape it can check. Running it against
real headers is `python -m kernelwright.evals.cards_oracle --headers DIR --cann 8.1` (see its docstring)."""
from __future__ import annotations

from kernelwright.evals.cards_oracle.cardcode import declarations, misuses, usage_blocks
from kernelwright.evals.cards_oracle.checks import accepted, compare_counts, quote_found
from kernelwright.evals.cards_oracle.compiler import parse, place
from kernelwright.evals.cards_oracle.layout import Layout
from kernelwright.evals.cards_oracle.probes import build
from kernelwright.knowledge.cards import load_card, load_cards
from kernelwright.tools.hardware import load_soc

CARD = """---
name: Foo
kind: api
category: vector-unary
summary: "s"
arity: [3]
---
# Foo

## Signatures
```cpp
// CANN 9.x only
template <typename T, bool isSetMask = true>
__aicore__ inline void Foo(const LocalTensor<T>& dst, T&& v, const SoftMaxShapeInfo& info = {});
```
```cpp
template <class... Args> __aicore__ inline void Bar(__gm__ const char* fmt, Args&&... args);
class Baz { public: Baz(); void Run(int n); };
```

## Supported dtypes
half.

## Constraints
- none

## Usage
```cpp
// given: LocalTensor<half> x; uint32_t n;
AscendC::Foo(x, x, n);
```
```cpp
// dav-m200 only
int Helper(int a) {
    return a;
}
```

## Common misuses

### Wrong count
```cpp
AscendC::Foo(x);
```
fails with `error: no matching function for call to 'Foo'` and `note: candidate function template not
viable: requires N arguments, but M were provided`.
"""


def test_reads_declarations_usage_and_misuses(tmp_path):
    path = tmp_path / "Foo.md"
    path.write_text(CARD)
    card = load_card(path)
    by_version = {v: [(d.name, d.member, d.redeclaration) for d in declarations(card, v)] for v in ("8.x", "9.x")}
    assert [name for name, *_ in by_version["8.x"]] == ["Bar", "Run"]  # the Foo block is CANN 9.x only
    foo = by_version["9.x"][0]
    assert foo[0] == "Foo" and not foo[1]
    assert foo[2] == ("template <typename T, bool isSetMask = true> static __aicore__ void Foo(const LocalTensor<T>& "
                      "dst, T&& v, const SoftMaxShapeInfo& info = {}) ;")
    assert "Args&&... args" in by_version["8.x"][0][2]  # `&&` and `...` stay glued
    assert by_version["8.x"][1][:2] == ("Run", True)  # a class member is not redeclared
    assert [b.scope for b in usage_blocks(card)] == ["function", "namespace"]
    assert [b.given for b in usage_blocks(card, arch="dav-c220")] == ["LocalTensor<half> x; uint32_t n;"]
    [case] = misuses(card)
    assert case.heading == "Wrong count" and len(case.blocks) == 1
    assert case.quotes == ["error: no matching function for call to 'Foo'",
                           "note: candidate function template not viable: requires N arguments, but M were provided"]


LOG = """\
p.cpp:5:3: error: no matching function for call to 'Foo'
h.h:10:1: note: candidate function template not viable: requires 3 arguments, but 2 were provided
h.h:20:1: note: candidate function template not viable: requires single argument 'x', but 2 arguments were provided
p.cpp:6:3: error: no matching function for call to 'Foo'
h.h:10:1: note: candidate template ignored: couldn't infer template argument 'T'
p.cpp:7:3: error: too many arguments to function call, expected 0, have 1
In file included from p.cpp:1:
h.h:30:1: error: static assertion failed due to requirement 'SupportType<int, float16::Fp16T, float>()': Failed
p.cpp:8:3: note: in instantiation of function template specialization 'AscendC::Exp<int>' requested here
"""


def test_reads_clangs_answers_and_gives_them_to_the_probe_that_asked():
    diags = parse(LOG)
    assert [d.severity for d in diags] == ["error"] * 4 and len(diags[0].notes) == 2
    assert accepted([diags[0]]) == "no"      # every candidate rejects the count
    assert accepted([diags[1]]) == "yes"     # a candidate got past the count (deduction failed)
    assert accepted([diags[2]]) == "no"      # a single function: too many arguments
    assert accepted([diags[3]]) == "yes"     # a static_assert inside the call: the count was fine
    assert accepted([]) == "yes"
    unit = build([], "kernel", ["kernel_operator.h"])
    probes = [type("P", (), {"first": first, "last": first})() for first in (5, 6, 7, 8)]
    outcome = place(diags, probes, "p.cpp")
    assert {i: [d.line for d in ds] for i, ds in outcome.diags.items()} == {0: [5], 1: [6], 2: [7], 3: [30]}
    assert unit.lines[0] == '#include "kernel_operator.h"'
    assert quote_found("static_assert failed due to requirement 'SupportType<int, half, float>()'", [diags[3]])
    assert quote_found("note: candidate function template not viable: requires N arguments, but M were provided",
                       [diags[0]])
    assert not quote_found("no matching function for call to 'Bar'", diags)


def test_argument_counts_compare_both_ways():
    assert compare_counts("arity", [3, 6], ({3, 6}, set())) == ""
    assert compare_counts("arity", [3, 6], ({3, 6}, {4, 5})) == ""  # deprecated overloads: either way
    problem = compare_counts("arity", [3, 5], ({3, 6}, set()))
    assert "lists [5] but no overload takes that many" in problem and "omits [6]" in problem


def test_every_card_can_be_probed():
    """Every code block of every card has balanced brackets and every card's probes generate."""
    cards = list(load_cards())
    for side in ("kernel", "host"):
        for version in ("8.x", "9.x"):
            unit = build(cards, side, [], version)
            unbalanced = [p.card for p in unit.probes if "unbalanced brackets" in unit.lines[p.first - 1]]
            assert unbalanced == [], unbalanced


def test_kernel_defines_select_the_soc_the_way_each_cann_version_reads_it(tmp_path):
    soc = load_soc("Ascend910B2")
    cann8, cann9 = (Layout(version, version, tmp_path, [], []).kernel_defines(soc) for version in ("8.x", "9.x"))
    assert "-D__DAV_C220__" in cann8 and not any(d.startswith("-D__NPU_ARCH__") for d in cann8)
    assert "-D__NPU_ARCH__=2201" in cann9 and "-DASCENDC_CPU_DEBUG=1" in cann8 + cann9
