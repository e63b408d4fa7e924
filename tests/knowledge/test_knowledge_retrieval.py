"""Search over a built index (a small copy of the corpus): ranking, kind and SoC filters, provenance."""
from __future__ import annotations

import pytest

from kernelwright.knowledge import NullRetriever, Retriever
from kernelwright.knowledge.paths import PACKAGE_ROOT
from kernelwright.tools.hardware import UnknownSoc


def test_questions_find_the_page_that_answers_them(shared_retriever):
    top = [p.doc_id for p in shared_retriever.search("how do I overlap copy-in with compute using two buffers", k=3)]
    assert "concepts/double-buffering" in top
    top = [p.doc_id for p in shared_retriever.search("the copy length is not a multiple of 32 bytes and the tail is lost", k=3)]
    assert {"concepts/alignment", "api/DataCopyPad", "api/DataCopy"} & set(top)


def test_exact_cards_come_first_then_search_fills_up(shared_retriever):
    passages = shared_retriever.search("error: no member named 'Softmax' in namespace 'AscendC'", k=4)
    assert passages[0].doc_id == "api/Softmax" and passages[0].match == "exact"
    assert len(passages) == 4 and len({p.doc_id for p in passages}) == 4
    assert all(p.match == "search" for p in passages[1:])
    assert "api/SoftMax" in [p.doc_id for p in passages]


def test_kind_filter(shared_retriever):
    for kinds in (["concept"], ["hardware"], ["api", "example"]):
        passages = shared_retriever.search("softmax rows and unified buffer size", k=5, kinds=kinds)
        assert passages and {p.kind for p in passages} <= set(kinds)
    with pytest.raises(ValueError, match="unknown document kind"):
        shared_retriever.search("x", kinds=["apis"])


def test_soc_filter(shared_retriever):
    hardware = shared_retriever.search("unified buffer size and core count", k=8, kinds=["hardware"], soc="Ascend310P")
    assert [p.doc_id for p in hardware] == ["hardware/Ascend310P3"]  # the alias resolves, other SoCs drop out
    # DataCopyPad does not exist on Ascend310P (dav-m200): its card leaves search results for that SoC
    query = "copy rows of any byte length with padding"
    assert "api/DataCopyPad" in [p.doc_id for p in shared_retriever.search(query, k=5, kinds=["api"], soc="Ascend910B2")]
    assert "api/DataCopyPad" not in [p.doc_id for p in shared_retriever.search(query, k=5, kinds=["api"], soc="Ascend310P3")]
    with pytest.raises(UnknownSoc):
        shared_retriever.search("x", soc="Ascend999")


def test_passages_cite_their_source_lines(shared_retriever):
    for passage in shared_retriever.search("double buffering doubles the UB used by each queue", k=3, kinds=["concept"]):
        assert passage.source.startswith(str(shared_retriever.corpus_dir)) or (PACKAGE_ROOT / passage.source).exists()
        lines = open(passage.source if passage.source.startswith("/") else PACKAGE_ROOT / passage.source).read().splitlines()
        cited = "\n".join(lines[passage.line_start - 1: passage.line_end])
        assert passage.heading.split(" > ")[-1] in cited  # the cited range holds the section heading
        assert 1 <= passage.line_start <= passage.line_end <= len(lines)


def test_null_retriever_and_protocol(shared_retriever):
    assert isinstance(shared_retriever, Retriever) and isinstance(NullRetriever(), Retriever)
    assert NullRetriever().search("anything") == [] and NullRetriever().api("Add") is None
