"""What every node does alike: ask its model (format-error reflection included), report progress on
the custom stream, read the feedback addressed to it, count tokens and cost."""
from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from kernelwright.agent.deps import Deps
from kernelwright.agent.models.base import Message, ModelError, Reply
from kernelwright.agent.prompting import render_text
from kernelwright.agent.state import Feedback, Halt, RunState, Unusable


def progress(node: str, message: str, **data: Any) -> None:
    """A custom stream event (`stream_mode="custom"`) for front ends; silent outside a graph run."""
    try:
        from langgraph.config import get_stream_writer
        write = get_stream_writer()
    except (RuntimeError, ImportError):
        return
    write({"node": node, "message": message, **data})


def feedback_for(state: RunState, node: str) -> Feedback | None:
    fb = state.get("feedback")
    return fb if fb and fb.to == node else None


def usage_update(reply: Reply | None) -> dict[str, float]:
    if reply is None:
        return {}
    u = reply.usage
    return {"prompt_tokens": u.prompt_tokens, "completion_tokens": u.completion_tokens, "cost_usd": u.cost_usd,
            "calls": max(u.calls, 1)}


def reflection(state: RunState, node: str) -> list[Message]:
    """The last unusable reply of this node and what was wrong with it (Aider's reflection)."""
    fe = state.get("format_error")
    if not fe or fe.node != node:
        return []
    return [{"role": "assistant", "content": fe.reply},
            {"role": "user", "content": render_text("format_error", problem=fe.problem, expected=fe.expected,
                                                    attempt=fe.count)}]


def ask(deps: Deps, node: str, messages: list[Message], schema: type[BaseModel] | None = None) -> Reply:
    """One model call; `ModelError` (the service failed after its retries) propagates to the caller."""
    model = deps.model(node)
    if model is None:
        raise ModelError(f"node {node} has no model configured")
    progress(node, f"asking {model.name}")
    return model.complete(messages, node=node, schema=schema)


def model_failed(node: str, e: ModelError) -> dict[str, Any]:
    return {"halt": Halt(status="environment_error", reason=f"{node}: {e}")}


def format_failed(state: RunState, deps: Deps, node: str, reply: Reply, problem: str, expected: str) -> dict[str, Any]:
    """A reply the node cannot use: retry with reflection, or stop once too many came in a row."""
    fe = state.get("format_error")
    count = fe.count + 1 if fe and fe.node == node else 1
    update: dict[str, Any] = {"format_error": Unusable(node=node, reply=reply.content[:6000], problem=problem,
                                                       expected=expected, count=count), "usage": usage_update(reply)}
    cap = deps.config.agent.max_format_errors
    if count > cap:
        update["halt"] = Halt(status="failed", reason=f"{node}: {count} unusable replies in a row (cap "
                                                      f"agent.max_format_errors={cap}); last problem: {problem}")
    return update
