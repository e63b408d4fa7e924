"""The API linter: every misuse marked in bad_kernel.cpp is reported (and nothing else), realistic
kernels and host code produce no findings, and the rules come from the card catalog."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from kernelwright.knowledge.catalog import ApiCatalog, load_catalog
from kernelwright.tools.lint import lint_file, lint_source

DATA = Path(__file__).resolve().parent / "data"
SIM_GOOD = Path(__file__).resolve().parents[1] / "sim" / "corpus" / "good"


def expected_findings(path: Path) -> set[tuple[int, str]]:
    return {(n, m.group(1)) for n, line in enumerate(path.read_text().splitlines(), 1)
            for m in [re.search(r"// expect: ([a-z][a-z0-9-]+)", line)] if m}


def test_every_marked_misuse_is_reported_and_nothing_else():
    path = DATA / "bad_kernel.cpp"
    found = {(d.line, d.rule) for d in lint_file(path)}
    assert found == expected_findings(path)


def test_findings_carry_place_message_hint_and_suggestions():
    by_rule = {d.rule: d for d in lint_file(DATA / "bad_kernel.cpp")}
    unknown = by_rule["unknown-api"]
    assert (unknown.symbol, unknown.line, unknown.col) == ("ReduceMeen", 26, 18)
    assert "no member named 'ReduceMeen' in namespace 'AscendC'" in unknown.message
    assert unknown.suggestions[:3] == ["ReduceMin", "ReduceMax", "ReduceSum"]
    assert by_rule["cann9-only"].suggestions == ["Muls"]
    assert by_rule["unknown-member"].suggestions[0] == "SetGlobalBuffer"
    assert "bfloat16_t" in {s for d in lint_file(DATA / "bad_kernel.cpp") if d.rule == "dtype-name" for s in d.suggestions}
    assert f"{DATA / 'bad_kernel.cpp'}:26:18: error [unknown-api]" in unknown.format()


def test_cann9_mode_accepts_cann9_apis():
    rules = {(d.line, d.rule) for d in lint_file(DATA / "bad_kernel.cpp", cann="9.x")}
    assert (19, "cann9-only") not in rules and (20, "invented-api") in rules
    with pytest.raises(ValueError, match="unknown CANN version '7.x'"):
        lint_source("", cann="7.x")


@pytest.mark.parametrize("name", ["add_kernel_launch.cpp", "softmax_rows.cpp", "scale_op_host.cpp"])
def test_realistic_sources_have_no_findings(name):
    assert [d.format() for d in lint_file(DATA / name)] == []


@pytest.mark.skipif(not SIM_GOOD.is_dir(), reason="the emulation's kernel corpus is not present")
def test_the_emulations_good_kernels_have_no_findings():
    """Working kernels written by the emulation's authors; a finding here means a missing card or
    `covers` entry (or a linter false positive), not a broken kernel."""
    sources = [p for p in SIM_GOOD.rglob("*") if p.suffix in (".cpp", ".h", ".asc")]
    assert sources
    assert [d.format() for p in sources for d in lint_file(p)] == []


def test_user_functions_shadowing_api_names_are_not_checked():
    source = """
    __aicore__ inline float Max(float a, float b) { return a > b ? a : b; }
    __aicore__ inline void Run() { float m = Max(1.0f, 2.0f); op.Init(x); this->Compute(3); helper.Add(1); }
    """
    assert lint_source(source) == []
    assert [d.rule for d in lint_source("void Run() { AscendC::Max(1.0f, 2.0f); }")] == ["arity"]


def test_member_checks_follow_declared_types_and_scopes():
    source = """
    void A(gert::TilingContext* context) { context->SetBlockDim(8); }
    void B(gert::InferDataTypeContext* context) { context->SetOutputDataType(0, 1); }
    void C(gert::TilingContext* context) { context->SetOutputDataType(0, 1); }
    """
    assert [(d.line, d.rule) for d in lint_source(source)] == [(4, "unknown-member")]


def test_rules_come_from_the_catalog_not_from_code():
    """Drop a card and its API is no longer known; the linter holds no API list of its own."""
    catalog = load_catalog()
    fewer = ApiCatalog(tuple(c for c in catalog.cards if c.name != "Cast"))
    source = "void f() { AscendC::Cast(y, x, AscendC::RoundMode::CAST_NONE, n); }"
    assert lint_source(source, catalog=catalog) == []
    assert [d.rule for d in lint_source(source, catalog=fewer)] == ["unknown-api"]


def test_comments_strings_and_preprocessor_are_ignored():
    source = '''
    // AscendC::Softmax(y, x, n);
    /* AscendC::Exp2(y, x, n); */
    const char* s = "AscendC::Fill(t, 0, n)";
    #define MY_COPY(a, b) AscendC::NoSuchApi(a, b)
    '''
    assert lint_source(source) == []


def test_unknown_parameter_structs_pass_but_unknown_calls_do_not():
    """Real code builds many AscendC parameter structs the cards do not list; calls are what models invent."""
    source = "void f() { auto p = AscendC::LoadData2DParams{1, 2}; AscendC::ReduceMeen(y, x, w, n); }"
    [finding] = lint_source(source)
    assert (finding.rule, finding.symbol) == ("unknown-api", "ReduceMeen")
    assert finding.suggestions == ["ReduceMin", "ReduceMax", "ReduceSum"]  # callable names only
