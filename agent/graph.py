"""The agent's state machine. `build_graph(deps)` builds and compiles it (never at import time), so a
caller can run it, checkpoint it, or add it to its own graph as a subgraph.

    START -> planner -> [review_plan] -> dsl_writer -> [review_dsl] -> lowerer -> verify -> [review_accept] -> finish
                 ^                          ^   |                          ^   |        |
                 |                          |   +-- rule/parse errors -----+   |        | fail
                 +--------- plan -----------+------------ debugger <-----------+--------+
                                                dsl      |      ascendc (hole or patch) -> lowerer

A node whose reply was unusable runs again with the reply and the problem shown (format errors,
capped). Every entry into a node first checks the stage cap and the overall caps (steps, model
calls, cost, seconds); a run that hits one goes to `finish` as `budget_exhausted`."""
from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

from kernelwright.agent.budget import blocked
from kernelwright.agent.deps import Deps
from kernelwright.agent.nodes import review
from kernelwright.agent.nodes.debugger import debugger
from kernelwright.agent.nodes.dsl_writer import dsl_writer
from kernelwright.agent.nodes.finish import finish
from kernelwright.agent.nodes.lowerer import lowerer
from kernelwright.agent.nodes.planner import planner
from kernelwright.agent.nodes.verify import verify
from kernelwright.agent.state import RunState

WORK_NODES: dict[str, Callable[[RunState, Deps], dict[str, Any]]] = {
    "planner": planner, "dsl_writer": dsl_writer, "lowerer": lowerer, "verify": verify, "debugger": debugger}


def _step(name: str, fn: Callable[[RunState, Deps], dict[str, Any]], deps: Deps):
    """Run a node and book it: the path, its run count (a run that only produced an unusable reply does
    not count against the stage cap: agent.max_format_errors caps those), its seconds."""
    def run(state: RunState) -> dict[str, Any]:
        start = time.monotonic()
        update = fn(state, deps) or {}
        update["path"] = [name]
        update["attempts"] = {} if update.get("format_error") else {name: 1}
        update["usage"] = dict(update.get("usage") or {}) | {"seconds": time.monotonic() - start}
        return update
    run.__name__ = name
    return run


class Router:
    """The conditional edges. Every target passes through `go`, which checks the caps."""

    def __init__(self, deps: Deps, interrupts: set[str]):
        self.cfg = deps.config.agent
        self.interrupts = interrupts

    def go(self, state: RunState, node: str) -> str:
        return "finish" if node != "finish" and blocked(state, self.cfg, node) else node

    def _retry(self, state: RunState, node: str) -> bool:
        fe = state.get("format_error")
        return bool(fe and fe.get("node") == node)

    def after_planner(self, state: RunState) -> str:
        if state.get("halt"):
            return "finish"
        if self._retry(state, "planner"):
            return self.go(state, "planner")
        return self.go(state, "review_plan" if "plan" in self.interrupts else "dsl_writer")

    def after_dsl_writer(self, state: RunState) -> str:
        if state.get("halt"):
            return "finish"
        if self._retry(state, "dsl_writer"):
            return self.go(state, "dsl_writer")
        check = state.get("dsl_check") or {}
        if not check.get("ok"):
            # A rule or parse error belongs to the program; a wrong result may be the plan's: ask the debugger.
            return self.go(state, "debugger" if check.get("stage") == "compare" else "dsl_writer")
        return self.go(state, "review_dsl" if "dsl" in self.interrupts else "lowerer")

    def after_lowerer(self, state: RunState) -> str:
        if state.get("halt"):
            return "finish"
        if self._retry(state, "lowerer"):
            return self.go(state, "lowerer")
        return self.go(state, "debugger" if state.get("lowering_error") else "verify")

    def after_verify(self, state: RunState) -> str:
        if state.get("halt"):
            return "finish"
        if (state.get("verdict") or {}).get("status") == "pass":
            return "review_accept" if "accept" in self.interrupts else "finish"
        return self.go(state, "debugger")

    def after_debugger(self, state: RunState) -> str:
        if state.get("halt"):
            return "finish"
        if self._retry(state, "debugger"):
            return self.go(state, "debugger")
        return self.go(state, (state.get("feedback") or {}).get("to", "finish"))

    def after_review(self, kind: str) -> Callable[[RunState], str]:
        return lambda state: self.go(state, review.route(kind, state))


def build_graph(deps: Deps, *, checkpointer: Any = None, interrupts: Iterable[str] | None = None) -> Any:
    """The compiled graph. `interrupts` (default: the config's) picks the review points: plan, dsl, accept."""
    from langgraph.graph import END, START, StateGraph

    chosen = set(deps.config.agent.interrupts if interrupts is None else interrupts)
    unknown = chosen - {"plan", "dsl", "accept"}
    if unknown:
        raise ValueError(f"unknown interrupt point(s) {sorted(unknown)}; choose among plan, dsl, accept")
    r = Router(deps, chosen)
    g = StateGraph(RunState)
    for name, fn in WORK_NODES.items():
        g.add_node(name, _step(name, fn, deps))
    g.add_node("finish", _step("finish", finish, deps))
    for kind in sorted(chosen):
        g.add_node(f"review_{kind}", _step(f"review_{kind}", review.make_review(kind), deps))
        g.add_conditional_edges(f"review_{kind}", r.after_review(kind),
                                ["planner", "dsl_writer", "lowerer", "finish"])
    reviews = [f"review_{k}" for k in sorted(chosen)]
    g.add_edge(START, "planner")
    g.add_conditional_edges("planner", r.after_planner, ["planner", "dsl_writer", "finish", *reviews])
    g.add_conditional_edges("dsl_writer", r.after_dsl_writer,
                            ["dsl_writer", "debugger", "lowerer", "finish", *reviews])
    g.add_conditional_edges("lowerer", r.after_lowerer, ["lowerer", "debugger", "verify", "finish"])
    g.add_conditional_edges("verify", r.after_verify, ["debugger", "finish", *reviews])
    g.add_conditional_edges("debugger", r.after_debugger, ["planner", "dsl_writer", "lowerer", "debugger", "finish"])
    g.add_edge("finish", END)
    return g.compile(checkpointer=checkpointer)
