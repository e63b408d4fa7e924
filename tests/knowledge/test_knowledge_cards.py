"""The built-in corpus: enough valid API cards, consistent front matter, the families the agent needs."""
from __future__ import annotations

import re
from collections import Counter

import pytest

from kernelwright.knowledge.cards import CardError, load_card, load_cards
from kernelwright.knowledge.catalog import load_catalog
from kernelwright.knowledge.builtin import builtin_chunks
from kernelwright.knowledge.paths import CORPUS_DIR
from kernelwright.tools.hardware import load_soc, soc_names

REQUIRED = """GlobalTensor LocalTensor TPipe TQue TQueBind TBuf TBufPool DataCopy DataCopyPad DataCopyParams
DataCopyExtParams DataCopyPadExtParams Add Sub Mul Div Max Min And Or Adds Muls Maxs Mins Relu Exp Ln Abs Sqrt
Rsqrt Reciprocal Cast RoundMode Duplicate Compare CompareScalar Select ReduceSum ReduceMax ReduceMin
WholeReduceSum WholeReduceMax BlockReduceSum PairReduceSum SetVectorMask SetMaskCount PipeBarrier SetFlag
WaitFlag HardEvent GetBlockIdx GetBlockNum SyncAll SetAtomicAdd SoftMax LayerNorm RmsNorm Tanh Sigmoid Gelu Log
BEGIN_TILING_DATA_DEF GET_TILING_DATA TilingContext PlatformAscendC OpDef Matmul""".split()
INVENTED = ["Softmax", "Exp2", "float16", "bfloat16", "bool_t"]
CANN9_ONLY = ["Divs", "Subs", "Neg", "Ands", "Ors"]


def test_at_least_80_cards_all_valid():
    cards = load_cards()
    assert len(cards) >= 80
    assert sum(c.kind == "api" for c in cards) >= 80


def test_required_families_have_cards():
    catalog = load_catalog()
    missing = [name for name in REQUIRED if catalog.get(name) is None or catalog.get(name).kind != "api"]
    assert missing == []
    assert all(catalog.get(n).kind == "invented" and catalog.get(n).use_instead for n in INVENTED)
    for name in CANN9_ONLY:
        card = catalog.get(name)
        assert (card.status("8.x"), card.status("9.x")) == ("absent", "current") and card.use_instead, name


def test_front_matter_is_consistent():
    cards = load_cards()
    archs = {load_soc(n).npu_arch for n in soc_names()}
    catalog = load_catalog()
    for card in cards:
        assert set(card.dtypes) <= archs, f"{card.path}: dtype keys must be npu_archs from socs.json"
        assert set(card.archs) <= archs, card.path
        assert all(n >= 0 for n in card.arity), card.path
        assert all(counts for counts in card.methods.values()), f"{card.path}: every member lists its argument counts"
        assert set(card.method_templates) <= set(card.methods), card.path
        for ref in card.see_also:
            assert catalog.get(ref) is not None, f"{card.path}: see_also '{ref}' has no card"
        if card.kind == "api":
            assert any(card.holds_for(v) for v in ("8.x", "9.x")), f"{card.path}: a real API exists in some version"
        else:
            assert not any(card.holds_for(v) for v in ("8.x", "9.x")), f"{card.path}: an invented API exists nowhere"


DIAGNOSTIC = re.compile(r"error:|no matching (member )?function|no member named|deduced conflicting|Failed to check|"
                        r"static_assert|no viable|too few template|unknown type name|exceed limits|is deprecated|"
                        r"cannot be narrowed|not supported on current device")


def test_every_misuse_section_names_cases_and_callables_quote_the_compiler():
    for card in load_cards():
        if card.kind != "api":
            continue
        misuses = card.body.split("## Common misuses", 1)[1]
        assert "\n### " in misuses, f"{card.path}: list each misuse under its own ### heading"
        if card.arity:
            assert DIAGNOSTIC.search(misuses), f"{card.path}: quote the diagnostic a misuse produces"


def test_card_files_do_not_collide_on_case_insensitive_filesystems():
    paths = [p.relative_to(CORPUS_DIR).as_posix().lower() for p in CORPUS_DIR.rglob("*.md")]
    assert [p for p, n in Counter(paths).items() if n > 1] == []


def test_invalid_card_is_rejected_with_its_path(tmp_path):
    bad = tmp_path / "Bad.md"
    bad.write_text("---\nname: Bad\nkind: api\ncategory: x\nsummary: s\narity: four\n---\n# Bad\n")
    with pytest.raises(CardError, match="(?s)Bad.md.*arity"):
        load_card(bad)
    bad.write_text("---\nname: Bad\nkind: api\ncategory: x\nsummary: s\n---\n# Bad\n## Signatures\n")
    with pytest.raises(CardError, match="lacks sections: Supported dtypes"):
        load_card(bad)


def test_corpus_has_concepts_examples_and_one_hardware_doc_per_soc():
    docs = {(c.kind, c.doc_id) for c in builtin_chunks()}
    kinds = Counter(kind for kind, _ in docs)
    assert kinds["concept"] >= 8 and kinds["example"] >= 11
    assert {doc for kind, doc in docs if kind == "hardware"} == {f"hardware/{n}" for n in soc_names()}
    examples = {doc for kind, doc in docs if kind == "example"}
    for category in ["elementwise", "broadcast", "reduce", "softmax", "normalization", "loss", "optimizer",
                     "pooling", "cast", "index-gather", "matmul"]:
        assert f"concepts/example-{category}" in examples


def test_hardware_docs_carry_the_profile_values():
    soc = load_soc("Ascend310P3")
    text = "\n".join(c.text for c in builtin_chunks() if c.doc_id == "hardware/Ascend310P3")
    assert str(soc.ub_bytes) in text and str(soc.aiv_cores) in text and soc.npu_arch in text
    assert all(c.socs == ["Ascend310P3"] for c in builtin_chunks() if c.doc_id == "hardware/Ascend310P3")


def test_any_markdown_under_the_corpus_is_indexed(tmp_path, make_corpus):
    """A page dropped into a new folder (the DSL reference will live in corpus/dsl/) is picked up."""
    corpus = make_corpus(tmp_path / "corpus", ["Add"], [])
    (corpus / "dsl").mkdir()
    (corpus / "dsl" / "reference.md").write_text("# DSL reference\n\n## tiles\n\nA.tiles splits a loop.\n")
    chunks = [c for c in builtin_chunks(corpus) if c.doc_id == "dsl/reference"]
    assert chunks and all(c.kind == "concept" and c.title == "DSL reference" for c in chunks)
    assert chunks[0].heading == "DSL reference > tiles" and chunks[0].line_start == 3


def test_every_corpus_folder_ships_in_the_wheel():
    """setup.py packages only folders with an __init__.py; a corpus folder without one (say a new
    corpus/dsl/) would be missing from non-editable installs."""
    folders = {p.parent for p in CORPUS_DIR.rglob("*.md")}
    assert [str(f.relative_to(CORPUS_DIR)) for f in sorted(folders) if not (f / "__init__.py").exists()] == []
