"""The agent's state machine. `build_graph(deps)` builds and compiles it (never at import time), so a
caller can run it, checkpoint it, or add it to its own graph as a subgraph.

    START -> planner -> [review_plan] -> dsl_writer -> [review_dsl] -> lowerer -> verify -> [perf] -> [review_accept] -> finish
                 ^  |                       ^   |                          ^   |     ^  |
                 |  |                       |   +-- rule/parse errors -----+   |     |  | fail, or a plan
                 +--|------ plan -----------+------------ debugger <-----------+-----|--+ requirement unmet
                    |                           dsl      |      ascendc (hole or patch) -> lowerer
                    +-- route ascendc --> ascendc_writer -+-- its project --------------+
                                              ^          (direct route: ascendc faults -> ascendc_writer)

A node whose reply was unusable runs again with the reply and the problem shown (format errors,
capped). Every entry into a work node first checks the stage cap and the overall caps (steps, model
calls, cost, seconds); a run that hits one goes to `finish` as `budget_exhausted`. Routing and the
debugger read one record of what failed (`RunState.failure`)."""
from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

from kernelwright.agent.budget import blocked
from kernelwright.agent.deps import Deps
from kernelwright.agent.nodes import review
from kernelwright.agent.nodes.ascendc_writer import ascendc_writer
from kernelwright.agent.nodes.debugger import debugger
from kernelwright.agent.nodes.dsl_writer import dsl_writer
from kernelwright.agent.nodes.finish import finish
from kernelwright.agent.nodes.lowerer import lowerer
from kernelwright.agent.nodes.planner import planner
from kernelwright.agent.nodes.verify import verify
from kernelwright.agent.perf.node import perf
from kernelwright.agent.state import PER_ATTEMPT, RunState, tally
from kernelwright.errors import ConfigError

WORK_NODES: dict[str, Callable[[RunState, Deps], dict[str, Any]]] = {
    "planner": planner, "dsl_writer": dsl_writer, "lowerer": lowerer, "verify": verify, "debugger": debugger,
    "perf": perf, "ascendc_writer": ascendc_writer}


def _step(name: str, fn: Callable[[RunState, Deps], dict[str, Any]], deps: Deps):
    """Run a node and book it: the path, its run count, its seconds. The per-attempt fields (failure,
    feedback, format_error, review) are cleared here unless the node sets them, so no node has to.
    An unusable reply keeps them: the node runs again on the same inputs, and that run does not count
    against the stage cap (agent.max_format_errors caps those)."""
    def run(state: RunState) -> dict[str, Any]:
        start = time.monotonic()
        update = fn(state, deps) or {}
        retry = update.get("format_error") is not None
        update = update if retry else dict.fromkeys(PER_ATTEMPT) | update
        update["path"] = [name]
        update["attempts"] = {} if retry else {name: 1}
        update["usage"] = tally(update.get("usage"), {"seconds": time.monotonic() - start})
        return update
    run.__name__ = name
    return run


class Router:
    """The conditional edges: `after(node)` reads the failure, the feedback and the review points; every
    work node it picks passes through `go`, which checks the caps (a review point costs nothing)."""

    def __init__(self, deps: Deps, interrupts: set[str]):
        self.cfg = deps.config.agent
        self.perf_on = deps.config.perf.enabled
        self.interrupts = interrupts

    def go(self, state: RunState, node: str) -> str:
        return "finish" if node in WORK_NODES and blocked(state, self.cfg, node) else node

    def after(self, node: str) -> Callable[[RunState], str]:
        """A halt ends the run; an unusable reply runs the node again; otherwise the node's own rule."""
        def route(state: RunState) -> str:
            if state.get("halt"):
                return "finish"
            fe = state.get("format_error")
            return self.go(state, node if fe and fe.node == node else getattr(self, node)(state))
        return route

    def _review_or(self, kind: str, node: str) -> str:
        return f"review_{kind}" if kind in self.interrupts else node

    def planner(self, state: RunState) -> str:
        v = state.get("verdict")
        if v is not None and v.status == "pass":    # a plan revised after a requirement the kernel did not honour
            return self._review_or("accept", "finish")
        return self._review_or("plan", writer(state))

    def ascendc_writer(self, state: RunState) -> str:
        return "debugger" if state.get("failure") else "verify"

    def dsl_writer(self, state: RunState) -> str:
        f = state.get("failure")
        if f:        # a rule or parse error belongs to the program; a wrong result may be the plan's: ask the debugger
            return "debugger" if f.stage == "compare" else "dsl_writer"
        return self._review_or("dsl", "lowerer")

    def lowerer(self, state: RunState) -> str:
        return "debugger" if state.get("failure") else "verify"

    def verify(self, state: RunState) -> str:
        if state.get("failure"):
            return "debugger"
        tunable = self.perf_on and state.get("perf") is None and state.get("dsl")   # perf tunes a DSL program's knobs
        return "perf" if tunable else self._review_or("accept", "finish")

    def perf(self, state: RunState) -> str:
        return self._review_or("accept", "finish")

    def debugger(self, state: RunState) -> str:
        fb = state.get("feedback")
        return fb.to if fb else "finish"

    def after_review(self, kind: str) -> Callable[[RunState], str]:
        def route(state: RunState) -> str:
            to = review.route(kind, state)
            return self.go(state, writer(state) if to == "dsl_writer" else to)
        return route


def writer(state: RunState) -> str:
    """The plan's route: the DSL writer, or the direct AscendC writer."""
    plan = state.get("plan")
    return "ascendc_writer" if plan is not None and plan.route == "ascendc" else "dsl_writer"


def build_graph(deps: Deps, *, checkpointer: Any = None, interrupts: Iterable[str] | None = None) -> Any:
    """The compiled graph. `interrupts` (default: the config's) picks the review points: plan, dsl, accept."""
    from langgraph.graph import END, START, StateGraph

    chosen = set(deps.config.agent.interrupts if interrupts is None else interrupts)
    unknown = chosen - {"plan", "dsl", "accept"}
    if unknown:
        raise ConfigError(f"unknown interrupt point(s) {sorted(unknown)}; choose among plan, dsl, accept")
    r = Router(deps, chosen)
    g = StateGraph(RunState)
    for name, fn in WORK_NODES.items():
        g.add_node(name, _step(name, fn, deps))
    g.add_node("finish", _step("finish", finish, deps))
    for kind in sorted(chosen):
        g.add_node(f"review_{kind}", _step(f"review_{kind}", review.make_review(kind), deps))
        g.add_conditional_edges(f"review_{kind}", r.after_review(kind),
                                ["planner", "dsl_writer", "ascendc_writer", "lowerer", "finish"])
    reviews = [f"review_{k}" for k in sorted(chosen)]
    g.add_edge(START, "planner")
    g.add_conditional_edges("planner", r.after("planner"),
                            ["planner", "dsl_writer", "ascendc_writer", "finish", *reviews])
    g.add_conditional_edges("ascendc_writer", r.after("ascendc_writer"),
                            ["ascendc_writer", "debugger", "verify", "finish"])
    g.add_conditional_edges("dsl_writer", r.after("dsl_writer"), ["dsl_writer", "debugger", "lowerer", "finish", *reviews])
    g.add_conditional_edges("lowerer", r.after("lowerer"), ["lowerer", "debugger", "verify", "finish"])
    g.add_conditional_edges("verify", r.after("verify"), ["debugger", "perf", "finish", *reviews])
    g.add_conditional_edges("perf", r.after("perf"), ["finish", *reviews])
    g.add_conditional_edges("debugger", r.after("debugger"), ["planner", "dsl_writer", "lowerer", "ascendc_writer",
                                                               "debugger", "finish"])
    g.add_edge("finish", END)
    return g.compile(checkpointer=checkpointer)
