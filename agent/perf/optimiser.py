"""The optimiser step (with a model): the model reads the best kernel's cost report (bottleneck pipe,
busy shares, GM bytes moved against the minimum, launch and device time) and the variants already
judged, and proposes a whole new DSL program; the proposal is judged like any knob variant. The model
is the dsl_writer's (the proposal is a DSL program); no model, no step."""
from __future__ import annotations

from kernelwright.agent.deps import Deps
from kernelwright.agent.dslkit import reference_text
from kernelwright.agent.models.base import ModelError
from kernelwright.agent.nodes.common import progress, usage_update
from kernelwright.agent.perf.search import Candidate, Judge, Search
from kernelwright.agent.perf.speed import cost_report
from kernelwright.agent.prompting import chip_facts, render
from kernelwright.agent.replies import FormatError, one_code_block
from kernelwright.agent.state import tally
from kernelwright.agent.writers import DSL_LANGS

MODEL_NODE = "dsl_writer"


def optimise(search: Search, judge: Judge, deps: Deps, *, rounds: int, max_seconds: float,
             min_gain: float) -> tuple[dict[str, float], list[str]]:
    """Up to `rounds` proposals (their own budget, beside the knob search's), each judged; returns the
    model usage and what happened, in words. The exchange is recorded under the node name `optimiser`."""
    usage: dict[str, float] = {}
    notes: list[str] = []
    model = deps.model(MODEL_NODE)
    if model is None or rounds <= 0:
        return usage, notes
    for i in range(1, rounds + 1):
        stop = search.out_of_budget(search.judged + 1, max_seconds)
        if stop or search.best.speed is None:
            notes.append(f"optimiser stopped: {stop or 'no time to improve on'}")
            break
        soc = deps.config.toolchain.soc
        messages = render("optimiser", chip=chip_facts(soc), reference=reference_text(soc),
                          report=cost_report(search.best.speed, soc), tried=[t.brief() for t in search.tried],
                          dsl=search.best.source)
        progress("perf", f"asking {model.name} for a faster program")
        try:
            reply = model.complete(messages, node="optimiser")
        except ModelError as e:
            notes.append(f"optimiser: the model failed ({e}); the kernel found so far stays")
            break
        usage = tally(usage, usage_update(reply))
        label = f"optimiser {i}"
        try:
            source = one_code_block(reply.content, DSL_LANGS, "the whole DSL program")
        except FormatError as e:
            search.tried.append(Candidate(label=label, source="", status="rejected", why=f"unusable reply: {e}"))
            continue
        if source.strip() == search.best.source.strip():
            search.tried.append(Candidate(label=label, source=source, status="rejected", why="the program is unchanged"))
            continue
        search.consider(judge(label, source), min_gain)
    return usage, notes
