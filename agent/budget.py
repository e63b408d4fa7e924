"""Caps per stage and over the whole run. Routing asks `blocked(state, node)` before entering a node;
the finish node asks `exhausted(state)` why the run stopped."""
from __future__ import annotations

from kernelwright.agent.config import AgentConfig
from kernelwright.agent.state import RunState

CAPPED = ("planner", "dsl_writer", "lowerer", "debugger", "ascendc_writer")


def overall(state: RunState, cfg: AgentConfig) -> str | None:
    usage = state.get("usage") or {}
    steps = len(state.get("path") or [])
    if steps >= cfg.max_steps:
        return f"{steps} node runs (cap agent.max_steps={cfg.max_steps})"
    if usage.get("calls", 0) >= cfg.max_llm_calls:
        return f"{int(usage['calls'])} model calls (cap agent.max_llm_calls={cfg.max_llm_calls})"
    if usage.get("cost_usd", 0) >= cfg.max_cost_usd:
        return f"${usage['cost_usd']:.2f} spent (cap agent.max_cost_usd={cfg.max_cost_usd})"
    if usage.get("seconds", 0) >= cfg.max_seconds:
        return f"{usage['seconds']:.0f} s of work (cap agent.max_seconds={cfg.max_seconds:.0f})"
    return None


def stage(state: RunState, cfg: AgentConfig, node: str) -> str | None:
    if node not in CAPPED:
        return None
    runs = (state.get("attempts") or {}).get(node, 0)
    cap = getattr(cfg.caps, node)
    return f"{node} ran {runs} times (cap agent.caps.{node}={cap})" if runs >= cap else None


def blocked(state: RunState, cfg: AgentConfig, node: str) -> str | None:
    return overall(state, cfg) or stage(state, cfg, node)


def exhausted(state: RunState, cfg: AgentConfig) -> str | None:
    """Why a run that reached `finish` without a verdict or a halt stopped: the caps it hit."""
    hit = [r for r in [overall(state, cfg)] + [stage(state, cfg, n) for n in CAPPED] if r]
    return "; ".join(hit) or None
