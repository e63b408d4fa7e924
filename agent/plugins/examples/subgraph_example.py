"""The kernelwright agent as one node of a larger LangGraph graph.

    python -m kernelwright.agent.plugins.examples.subgraph_example [TASK.py] [--model builtin] [--config FILE]

The parent graph picks a task, hands it to the kernelwright subgraph (plan -> DSL -> AscendC ->
referee -> repair), then writes a one-line report from the state the subgraph left behind."""
from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import Any

from kernelwright.agent.plugins.subgraph import initial_state, kernel_subgraph
from kernelwright.agent.state import RunState

DEFAULT_TASK = Path(__file__).resolve().parents[3] / "evals" / "suite" / "activation" / "relu_ragged.py"


class ParentState(RunState, total=False):
    request: str                       # the parent's own keys ...
    report: str                        # ... next to the RunState keys it shares with the subgraph


def build_parent(subgraph: Any, artifacts: str) -> Any:
    from langgraph.graph import END, START, StateGraph

    def prepare(state: ParentState) -> dict[str, Any]:
        return initial_state(state["request"], artifacts)

    def report(state: ParentState) -> dict[str, Any]:
        verdict = state.get("verdict")
        return {"report": f"{state['task'].name}: {state.get('status')} after {' -> '.join(state.get('path', []))}"
                          f" ({verdict.summary if verdict else 'no verdict'})"}

    g = StateGraph(ParentState)
    g.add_node("prepare", prepare)
    g.add_node("kernelwright", subgraph)          # the compiled agent graph is the node
    g.add_node("report", report)
    g.add_edge(START, "prepare")
    g.add_edge("prepare", "kernelwright")
    g.add_edge("kernelwright", "report")
    g.add_edge("report", END)
    return g.compile()


def main(argv: list[str] | None = None) -> str:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("task", nargs="?", default=str(DEFAULT_TASK))
    p.add_argument("--model", default="builtin", help="builtin (no LLM), replay:FILE, or a litellm name")
    p.add_argument("--config", default=None, help="agent config file (.yaml or .toml), e.g. to switch retrieval off")
    p.add_argument("--out", default=None, help="artifact directory (default: a temporary one)")
    args = p.parse_args(argv)
    artifacts = args.out or tempfile.mkdtemp(prefix="kw-subgraph-")
    with kernel_subgraph(model=args.model, config=args.config) as sub:
        final = build_parent(sub, artifacts).invoke({"request": args.task}, {"recursion_limit": 200})
    print(final["report"])
    return final["report"]


if __name__ == "__main__":
    main()
