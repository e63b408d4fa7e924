"""Cards per CANN version: the linter checks the target version's argument counts and members and
flags APIs that version lacks or deprecates; the target comes from the configuration; retrieval
leaves out APIs absent from it; every card passage says where it holds."""
from __future__ import annotations

import pytest

from kernelwright.agent.cli import main
from kernelwright.errors import ConfigError
from kernelwright.knowledge.catalog import load_catalog
from kernelwright.knowledge.lookup import card_passage
from kernelwright.knowledge.versions import availability_line, target_cann
from kernelwright.tools.lint import lint_source

CREATE_VEC_INDEX = """
void Run(AscendC::LocalTensor<int32_t> idx, uint64_t mask, uint64_t bits[2]) {
    AscendC::CreateVecIndex(idx, static_cast<int32_t>(0), 64);
    AscendC::CreateVecIndex(idx, static_cast<int32_t>(0), mask, 1, 1, 8);
    AscendC::CreateVecIndex(idx, static_cast<int32_t>(0), bits, 1, 1, 8);
    AscendC::CreateVecIndex(idx, static_cast<int32_t>(0), mask, 1, 1);
}
"""
WHOLE_REDUCE = "void Run() { AscendC::WholeReduceSum(dst, src, 64, rows, 1, 1, 8); }\n"


def test_create_vec_index_takes_three_or_six_arguments():
    found = [(d.line, d.rule) for d in lint_source(CREATE_VEC_INDEX)]
    assert found == [(6, "arity")]  # only the 5-argument call; both 6-argument mask forms pass
    assert "takes 3 or 6 arguments" in lint_source(CREATE_VEC_INDEX)[0].message


def test_tiling_context_has_no_input_count_of_its_own():
    source = """
    static ge::graphStatus TilingFunc(gert::TilingContext* context) {
        size_t inputs = context->GetInputsNum();
        size_t nodeInputs = context->GetComputeNodeInfo()->GetInputsNum();
        return ge::GRAPH_SUCCESS;
    }
    """
    [finding] = lint_source(source)
    assert (finding.rule, finding.line, finding.symbol) == ("unknown-member", 3, "GetInputsNum")
    assert "TilingContext has no member 'GetInputsNum'" in finding.message


def test_cann9_flags_the_deprecated_reductions_and_cann8_does_not():
    assert lint_source(WHOLE_REDUCE, cann="8.x") == []
    [finding] = lint_source(WHOLE_REDUCE, cann="9.x")
    assert (finding.rule, finding.severity, finding.suggestions) == ("deprecated", "warning", ["ReduceRepeat"])
    assert "deprecated in CANN 9.x: use ReduceRepeat" in finding.message
    assert "ReduceRepeat<ReduceType::SUM>" in finding.hint


def test_apis_new_in_cann9_and_version_specific_counts():
    source = "void Run() { AscendC::Divs(y, x, s, n); float h = AscendC::Cast(v); }\n"
    assert [d.rule for d in lint_source(source, cann="8.x")] == ["cann9-only", "arity"]
    assert lint_source(source, cann="9.x") == []  # the scalar Cast(value) overload is CANN 9's


def test_lint_cli_takes_the_version_from_flag_config_and_environment(tmp_path, capsys, monkeypatch):
    kernel = tmp_path / "k.cpp"
    kernel.write_text(WHOLE_REDUCE)
    monkeypatch.setenv("KERNELWRIGHT_CANN", "8.x")
    assert main(["lint", str(kernel)]) == 0
    assert main(["lint", "--cann", "9.x", str(kernel)]) == 1
    out = capsys.readouterr().out
    assert "warning [deprecated] 'WholeReduceSum' is deprecated in CANN 9.x" in out and "(CANN 9.x)" in out
    monkeypatch.setenv("KERNELWRIGHT_CANN", "9.x")
    assert main(["lint", str(kernel)]) == 1
    config = tmp_path / "kw.yaml"
    config.write_text("toolchain:\n  cann: 8.x\n")
    monkeypatch.delenv("KERNELWRIGHT_CANN")
    assert main(["lint", "--config", str(config), str(kernel)]) == 0
    config.write_text("toolchain:\n  cann: 7.x\n")
    assert main(["lint", "--config", str(config), str(kernel)]) == 2
    assert "toolchain.cann" in capsys.readouterr().err


def test_target_version_defaults_to_the_installed_cann(tmp_path, monkeypatch):
    for var in ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME", "ASCEND_CANN_PACKAGE_PATH"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr("kernelwright.tools.cann.detect.DEFAULT_ROOTS", [])
    assert target_cann() == "8.x" and target_cann("9.x") == "9.x"
    with pytest.raises(ConfigError, match="'7.x'"):
        target_cann("7.x")
    root = tmp_path / "cann"
    root.mkdir()
    (root / "share/info/runtime").mkdir(parents=True)       # where a CANN 9 install writes its version
    (root / "share/info/runtime/version.info").write_text("Version=9.1.0\n")
    monkeypatch.setenv("ASCEND_HOME_PATH", str(root))
    assert target_cann() == "9.x"


def test_every_card_says_where_it_holds():
    catalog = load_catalog()
    line = availability_line(catalog.get("WholeReduceSum"))
    assert line.startswith("Holds for: CANN 8.x; deprecated in CANN 9.x (use ReduceRepeat")
    assert availability_line(catalog.get("Divs")).startswith("Holds for: not in CANN 8.x (use Muls); CANN 9.x.")
    assert availability_line(catalog.get("Scatter")).endswith("SoCs: Ascend310P.")
    passage = card_passage(catalog.get("ShiftLeft"), "exact", 1.0)
    assert passage.text.splitlines()[:2] == ["# ShiftLeft", "Holds for: CANN 8.x; CANN 9.x. SoCs: Ascend910B, Ascend910_93."]


def test_search_puts_the_replacement_of_an_api_absent_from_the_target_version_in_its_place(shared_retriever):
    query = "divide a tensor by a scalar with CANN 8"
    cann9 = [p.doc_id for p in shared_retriever.search(query, k=4, kinds=["api"], cann="9.x")]
    cann8 = shared_retriever.search(query, k=4, kinds=["api"], cann="8.x")
    assert cann9[0] == "api/Divs" and cann9.index("api/Muls") > 1  # Adds sits between them
    # on 8.x Divs's place goes to its replacement Muls (simply leaving Divs out would put Adds first)
    assert cann8[0].doc_id == "api/Muls" and "# Muls" in cann8[0].text
    assert "api/Divs" not in [p.doc_id for p in cann8]
    # a card named in the query is still shown: it says itself that it is CANN 9 only
    named = shared_retriever.search("AscendC::Divs", k=1, cann="8.x")
    assert named[0].doc_id == "api/Divs" and "not in CANN 8.x" in named[0].text


def test_global_functions_called_through_ascendc():
    source = "void Run() { auto* p = AscendC::GetTPipePtr(); auto* q = GetTPipePtr(); GM_ADDR w = GetSysWorkSpacePtr(); }\n"
    [finding] = lint_source(source)
    assert (finding.rule, finding.symbol, finding.col) == ("wrong-namespace", "GetTPipePtr", 33)
    assert "no member named 'GetTPipePtr' in namespace 'AscendC'" in finding.message
