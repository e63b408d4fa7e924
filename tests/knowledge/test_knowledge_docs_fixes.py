"""The user's documents (add/remove with provenance) and the error→fix memory, in their own index."""
from __future__ import annotations

import pytest

from kernelwright.knowledge.fixes import FixMemory, error_signature
from kernelwright.knowledge.user_docs import DocError

ERROR = ("/tmp/run7/op_kernel/gelu_custom.cpp:88:13: error: no matching function for call to 'Muls'\n"
         "note: candidate template ignored: deduced conflicting types for parameter 'T' ('half' vs. 'float')")
DIFF = "-    AscendC::Muls(y, x, 0.5f, n);\n+    AscendC::Muls(y, x, static_cast<half>(0.5f), n);\n"


def test_added_documents_are_searchable_with_provenance_and_removable(tiny_retriever, tmp_path):
    notes = tmp_path / "team_notes.md"
    notes.write_text("# Team notes\n\nGeneral remarks.\n\n## Rotary embedding\n\n"
                     "Our rotary position embedding kernel splits attention heads across vector cores.\n")
    header = tmp_path / "vendor_api.h"
    header.write_text("namespace vendor {\n/// Quantises a tile with a zebra-stripe pattern.\n"
                      "void ZebraQuantize(int* dst, const int* src, int n);\n}\n")
    page = tmp_path / "faq.html"
    page.write_text("<html><body>\n<h1>FAQ</h1>\n<p>Why does the flamingo kernel stall? Its queue depth is zero.</p>\n</body></html>")
    docs = tiny_retriever.user_docs.add_paths([notes, header, page])
    assert [len(d.chunks) for d in docs] == [2, 1, 1]

    hit = tiny_retriever.search("rotary position embedding heads split across cores", k=3, kinds=["user"])[0]
    assert (hit.source, hit.heading, hit.line_start, hit.line_end) == (str(notes), "Team notes > Rotary embedding", 5, 7)
    hit = tiny_retriever.search("ZebraQuantize zebra-stripe quantisation", k=1, kinds=["user"])[0]
    assert hit.source == str(header) and hit.heading == "vendor::ZebraQuantize()" and hit.line_start == 2
    assert tiny_retriever.search("flamingo kernel stall", k=1, kinds=["user"])[0].source == str(page)

    tiny_retriever.user_docs.remove(str(notes))
    tiny_retriever.user_docs.remove(docs[1].id)
    remaining = {p.source for p in tiny_retriever.search("rotary embedding zebra flamingo", k=5, kinds=["user"])}
    assert remaining == {str(page)}
    with pytest.raises(DocError, match="matches no added document"):
        tiny_retriever.user_docs.remove(str(notes))


def test_bad_document_input_is_refused_before_anything_is_stored(tiny_retriever, tmp_path):
    (tmp_path / "manual.pdf").write_bytes(b"%PDF-1.7")
    with pytest.raises(DocError, match=r"manual\.pdf: unsupported document type '\.pdf'"):
        tiny_retriever.user_docs.add_paths([tmp_path / "manual.pdf"])
    with pytest.raises(DocError, match="no such file or folder"):
        tiny_retriever.user_docs.add_paths([tmp_path / "missing.md"])
    assert tiny_retriever.user_docs.list() == []


def test_error_signature_ignores_paths_and_numbers():
    other = ERROR.replace("/tmp/run7/op_kernel/gelu_custom.cpp:88:13", "/home/u/k/silu.cpp:12:5")
    assert error_signature(ERROR) == error_signature(other)
    assert error_signature(ERROR).startswith("error: no matching function for call to 'Muls'")


def test_fix_memory_records_and_finds_similar_fixes(tmp_path):
    memory = FixMemory(home=tmp_path)
    fix = memory.record(ERROR, DIFF, "Scalars must have the tensor's element type.", {"task": "gelu", "run": "7"})
    again = memory.record(ERROR, DIFF, "duplicate")
    assert again.id == fix.id and len(memory.all()) == 1
    memory.record("error: no member named 'Exp2' in namespace 'AscendC'", "-Exp2\n+Exp\n", "no Exp2")
    similar = memory.similar(ERROR.replace("gelu_custom.cpp:88", "silu.cpp:3"), k=2)
    assert similar[0].id == fix.id and similar[0].provenance == {"task": "gelu", "run": "7"}
    with pytest.raises(ValueError, match="non-empty error text and diff"):
        memory.record("error: x", "", "nothing")


def test_fixes_are_retrieved_through_the_index(tiny_retriever):
    fix = tiny_retriever.fixes.record(ERROR, DIFF, "Scalars must have the tensor's element type.")
    passages = tiny_retriever.search("deduced conflicting types for parameter 'T' half vs float in Muls", k=2, kinds=["fix"])
    assert passages[0].doc_id == f"fix/{fix.id}" and passages[0].kind == "fix"
    assert [r.id for r in tiny_retriever.fixes.similar(ERROR, k=1, retriever=tiny_retriever)] == [fix.id]
