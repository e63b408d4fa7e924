"""Fixtures for the knowledge tests. Index-backed tests run on a small copy of the real corpus (a
dozen cards and a few concept pages) so that embedding stays cheap; one index is built per test
session and shared read-only. Tests that change an index build their own in a temporary home."""
from __future__ import annotations

import shutil
import socket
from contextlib import contextmanager
from pathlib import Path

import pytest

from kernelwright.knowledge.paths import CORPUS_DIR

DATA = Path(__file__).resolve().parent / "data"
SMALL_CARDS = ["Add", "Adds", "Muls", "Divs", "DataCopy", "DataCopyPad", "SoftMax", "Softmax", "TQue", "Cast",
               "ReduceSum", "SetFlag"]
SMALL_PAGES = ["concepts/double-buffering.md", "concepts/alignment.md", "concepts/example-softmax.md",
               "concepts/ub-budget.md"]


def copy_corpus(dest: Path, cards: list[str], pages: list[str]) -> Path:
    """A corpus folder holding the named cards (wherever they live under api/) and pages."""
    for name in cards:
        [source] = [p for p in (CORPUS_DIR / "api").rglob(f"{name}.md") if p.stem == name]
        target = dest / source.relative_to(CORPUS_DIR)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(source, target)
    for page in pages:
        (dest / page).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(CORPUS_DIR / page, dest / page)
    return dest


@pytest.fixture(scope="session")
def make_corpus():
    """`make_corpus(dest, cards, pages)` builds a corpus folder from parts of the real one."""
    return copy_corpus


@pytest.fixture(scope="session")
def small_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_corpus(tmp_path_factory.mktemp("corpus"), SMALL_CARDS, SMALL_PAGES)


@contextmanager
def network_refused():
    """Refuse (and record) every TCP/UDP connect made from Python while the block runs."""
    attempts: list = []
    real = socket.socket.connect

    def refuse(self, address):
        if self.family == socket.AF_UNIX:
            return real(self, address)
        attempts.append(address)
        raise OSError(f"network access in an offline test: {address}")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(socket.socket, "connect", refuse)
        yield attempts


@pytest.fixture(scope="session")
def shared_retriever(tmp_path_factory: pytest.TempPathFactory, small_corpus: Path):
    """One index for the whole session (per xdist worker), in a temporary KERNELWRIGHT_HOME; read-only.
    Building it loads the model and opens Chroma: no network connection may be attempted."""
    from kernelwright.knowledge.retriever import IndexRetriever

    home = tmp_path_factory.mktemp("kw-home") / "knowledge"
    retriever = IndexRetriever(home=home, corpus_dir=small_corpus)
    with network_refused() as attempts:
        retriever.build()
        retriever.search("how do I overlap copy-in and compute", k=5)
    assert attempts == [], f"the knowledge index tried to reach the network: {attempts}"
    return retriever


@pytest.fixture
def tiny_retriever(tmp_path: Path):
    """A fresh, writable index over three cards and one page (for add/remove/rebuild scenarios)."""
    from kernelwright.knowledge.retriever import IndexRetriever

    corpus = copy_corpus(tmp_path / "corpus", ["Add", "DataCopy", "Softmax"], ["concepts/double-buffering.md"])
    return IndexRetriever(home=tmp_path / "home", corpus_dir=corpus)
