"""Exact symbol lookup before semantic search: compiler messages and questions that name an AscendC
symbol get its card first; invented or misspelt names get the nearest real ones. No index needed."""
from __future__ import annotations

import pytest

from kernelwright.knowledge.catalog import load_catalog
from kernelwright.knowledge.lookup import clean_query, soc_passages, symbol_passages
from kernelwright.knowledge.retriever import IndexRetriever
from kernelwright.knowledge.symbols import find_symbols

MESSAGES = [
    ("softmax.cpp:61:18: error: no member named 'Softmax' in namespace 'AscendC'", "api/Softmax"),
    ("error: no matching function for call to 'Adds'\nnote: deduced conflicting types for parameter 'T' ('half' vs. 'float')", "api/Adds"),
    ("error: 'Subs' is not a member of 'AscendC'", "api/Subs"),
    ("error: no matching constructor for initialization of 'AscendC::DataCopyParams'", "api/DataCopyParams"),
    ("error: too few template arguments for class template 'TQue'", "api/TQue"),
    ("static_assert failed \"Failed to check dtype in Add, current api support dtype combination is ...\"", "api/Add"),
    ("\"TPipe::InitBuffer(T& que, uint8_t num, uint32_t len) not supports T as TBuf\"", "api/TPipe"),
    ("error: no member named 'AllocTensor' in 'AscendC::TBuf<AscendC::TPosition::VECCALC>'", "api/TBuf"),
    ("error: unknown type name 'float16'", "api/float16"),
    ("how do I use AscendC::DataCopyPad for a tail?", "api/DataCopyPad"),
    ("what does PipeBarrier<PIPE_V>() wait for", "api/PipeBarrier"),
    ("q.AllocTensor() does not compile", "api/TBuf"),  # a member: its owning classes
]


@pytest.mark.parametrize("message,first", MESSAGES)
def test_compiler_message_returns_the_named_card_first(message, first):
    passages = symbol_passages(message, load_catalog(), limit=3)
    assert passages and passages[0].doc_id == first
    assert passages[0].match == "exact" and passages[0].score == 1.0
    assert passages[0].source.endswith(".md") and "## " in passages[0].text  # the whole card, with provenance


@pytest.mark.parametrize("unknown,nearest", [
    ("Sofmax", "api/SoftMax"), ("GetBlockId", "api/GetBlockIdx"), ("DataCopyIn", "api/DataCopy"),
    ("WholeReduceSun", "api/WholeReduceSum"), ("SetGlobalBuffer", "api/GlobalTensor")])
def test_unknown_symbol_returns_the_nearest_real_ones(unknown, nearest):
    passages = symbol_passages(f"error: no member named '{unknown}' in namespace 'AscendC'", load_catalog(), limit=3)
    assert passages[0].doc_id == nearest
    if passages[0].match == "nearest":
        assert all(p.match == "nearest" for p in passages) and passages[0].score >= passages[-1].score


def test_nearest_never_suggests_invented_names():
    names = [s.name for s in load_catalog().nearest("Softmaxx", n=5)]
    assert "SoftMax" in names and "Softmax" not in names


def test_user_identifiers_do_not_trigger_lookups():
    # an undeclared user variable far from every API name gets nothing, not a random card
    assert symbol_passages("error: use of undeclared identifier 'tilingDataPtr'", load_catalog(), limit=3) == []
    # plain English words that happen to be lower-case API-ish names are not symbols
    refs = find_symbols("how do I add half of the values", load_catalog().name_set())
    assert refs == []
    # PyTorch dtype names in prose are not the invented kernel types; in code they are
    prose = symbol_passages("which rounding mode matches PyTorch from float32 to float16?", load_catalog(), limit=3)
    assert prose == []
    assert [p.doc_id for p in symbol_passages("LocalTensor<float16> x;", load_catalog(), limit=3)] == \
        ["api/LocalTensor", "api/float16"]


def test_symbols_come_in_order_of_evidence():
    refs = find_symbols("error: no matching function for call to 'Muls'\n  AscendC::Add(z, x, y, n);", load_catalog().name_set())
    assert [r.name for r in refs][:2] == ["Muls", "Add"]


def test_soc_names_and_aliases_return_their_hardware_profile():
    assert [p.doc_id for p in soc_passages("UB size of Ascend310P?")] == ["hardware/Ascend310P3"]
    assert [p.doc_id for p in soc_passages("ascend910b vs Ascend910B4")] == ["hardware/Ascend910B2", "hardware/Ascend910B4"]
    assert soc_passages("the 910 series in general") == []


def test_clean_query_drops_paths_and_positions():
    assert clean_query("/tmp/x/op_kernel/add.cpp:12:5: error: boom") == "error: boom"


def test_api_lookup_and_exact_search_need_no_index(tmp_path):
    retriever = IndexRetriever(home=tmp_path)
    assert retriever.api("AscendC::DataCopy").name == "DataCopy"
    assert retriever.api("QuePosition").name == "TPosition"  # alias
    assert retriever.api("NoSuchThing") is None
    passages = retriever.search("error: no matching function for call to 'Cast'", k=1)
    assert [p.doc_id for p in passages] == ["api/Cast"]
    assert not (tmp_path / "index").exists()  # answered by exact lookup alone
