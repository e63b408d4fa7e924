"""What the model nodes retrieve, and the progress shown while the knowledge base opens: the planner gets a
search over everything, the writer the API cards of the operations its plan names, the debugger the cards of
the symbols its failure names and past fixes (never pages picked only by similarity to an error text)."""
from __future__ import annotations

import threading
import time
from typing import Any

from kernelwright.agent.deps import Deps
from kernelwright.agent.nodes.common import progress

CARD_CHARS = 1200          # a card's head: signature and the first notes, not its whole body
SLOW_SECONDS = 5.0


def passage_dicts(passages: list[Any], chars: int = 1500) -> list[dict[str, str]]:
    return [{"cite": p.cite(), "text": p.text[:chars]} for p in passages]


_WARMING: dict[int, threading.Thread] = {}


def warm(deps: Deps) -> None:
    """Open the knowledge base (sync the index, load the embedding model: minutes on a loaded machine) in a
    thread while the planner traces the reference in its subprocess; the first search waits for it."""
    r = deps.retriever
    if getattr(r, "is_current", None) is None or getattr(r, "_synced", None) or id(r) in _WARMING:
        return

    def run() -> None:
        try:
            r.build()
            if getattr(r, "index", None) is not None:    # the semantic index embeds each query: load its model
                from kernelwright.knowledge.embedding import embed
                embed(["warm up"])
        except Exception:          # the search itself will meet and report the same problem
            pass
    _WARMING[id(r)] = threading.Thread(target=run, name="kb-warm", daemon=True)
    _WARMING[id(r)].start()


def _opening(deps: Deps, node: str) -> float:
    """Say what a slow first search is doing (building the index, loading the embedding model) before it
    starts; returns the start time."""
    warming = _WARMING.pop(id(deps.retriever), None)
    if warming is not None and warming.is_alive():
        progress(node, "waiting for the knowledge base to open (index and embedding model, started with the trace)")
        start = time.monotonic()
        warming.join()
        return start
    is_current = getattr(deps.retriever, "is_current", None)
    if is_current is not None and not getattr(deps.retriever, "_synced", None):
        first = "building the knowledge index (first run of this KERNELWRIGHT_HOME: minutes)" if not is_current() \
            else "opening the knowledge base (loading the embedding model)"
        progress(node, first)
    return time.monotonic()


def _done(node: str, start: float) -> None:
    seconds = time.monotonic() - start
    if seconds > SLOW_SECONDS:
        progress(node, f"knowledge base ready ({seconds:.0f} s)")


# Sections a plan has no use for: compiler-error notes (the debugger's, through failure_cards) and the CLI's
# commands (the players' planner for selu got FusedMulAddRelu's "Missing an operand" and `kernelwright dsl check`).
NOT_FOR_PLANS = ("> Common misuses", "> Commands")


def retrieve(deps: Deps, query: str, kinds: list[str] | None = None, node: str = "planner",
             k: int | None = None) -> list[dict[str, str]]:
    start = _opening(deps, node)
    want = k or deps.config.retriever.k
    more = len(NOT_FOR_PLANS) if node == "planner" else 0
    passages = deps.retriever.search(query, k=want + more, kinds=kinds, soc=deps.config.toolchain.soc)
    if node == "planner":
        passages = [p for p in passages if not any(s in p.cite() for s in NOT_FOR_PLANS)]
    passages = passages[:want]
    _done(node, start)
    return passage_dicts(passages)


def api_cards(deps: Deps, text: str, limit: int = 4) -> list[dict[str, str]]:
    """The API cards of the symbols `text` names (exact names, or the nearest real ones for a name that does
    not exist); no similarity search."""
    catalog = getattr(deps.retriever, "catalog", None)
    if catalog is None or not text.strip():
        return []
    from kernelwright.knowledge.lookup import symbol_passages
    return passage_dicts(symbol_passages(text, catalog, limit), CARD_CHARS)


def plan_cards(deps: Deps, plan: Any) -> list[dict[str, str]]:
    """The cards of the AscendC operations the plan names (its math, tiling and pitfalls)."""
    if plan is None:
        return []
    return api_cards(deps, " ".join([plan.math, plan.tiling, plan.tail_handling, *plan.pitfalls]))


def failure_cards(deps: Deps, failure: Any) -> list[dict[str, str]]:
    """Cards of the symbols the failure names and, for a failing kernel, past fixes of similar failures."""
    text = " ".join([failure.summary, *failure.details])[:4000]
    found = api_cards(deps, text)
    if failure.subject in ("kernel", "patch"):
        found += retrieve(deps, text[:1000], kinds=["fix"], node="debugger", k=2)
    return found
