"""The index follows the corpus: built on first use, untouched when nothing changed, synced (only the
changed chunks re-embedded) when a card changes, rebuilt from scratch on request."""
from __future__ import annotations


def test_index_is_built_on_first_search_and_kept_when_unchanged(tiny_retriever):
    assert not tiny_retriever.is_current()
    tiny_retriever.search("double buffering", k=2, kinds=["concept"])
    assert tiny_retriever.is_current()
    report = tiny_retriever.build()
    assert (report.added, report.removed, report.rebuilt) == (0, 0, False)


def test_changed_card_is_resynced_and_searchable(tiny_retriever):
    first = tiny_retriever.build()
    assert first.rebuilt and first.added == first.chunks
    card = tiny_retriever.corpus_dir / "api" / "Add.md"
    card.write_text(card.read_text().replace("## Constraints", "## Constraints\n- Pelicans never add tensors of "
                                                                "more than seven elements on Tuesdays."))
    assert not tiny_retriever.is_current()
    synced = tiny_retriever.build()
    assert (synced.added, synced.removed, synced.rebuilt) == (1, 1, False)
    assert synced.moved >= 1  # later sections shifted down a line: provenance updated, not re-embedded
    top = tiny_retriever.search("pelicans on tuesdays", k=1, kinds=["api"])[0]
    assert top.doc_id == "api/Add" and "Pelicans" in top.text
    assert tiny_retriever.api("Add").body.count("Pelicans") == 1  # the catalog sees the edit too


def test_force_rebuilds_from_scratch(tiny_retriever):
    tiny_retriever.build()
    report = tiny_retriever.build(force=True)
    assert report.rebuilt and report.added == report.chunks and report.removed == 0


def test_a_new_schema_or_model_re_embeds_everything(tiny_retriever, monkeypatch):
    tiny_retriever.build()
    monkeypatch.setattr("kernelwright.knowledge.index.SCHEMA", 999)  # e.g. the embedded text changed
    report = tiny_retriever.build()
    assert report.rebuilt and report.added == report.chunks
