"""One line per streamed event, for plain-text front ends (`kernelwright run` prints them to stderr)."""
from __future__ import annotations

from typing import Any


def _node_line(node: str, u: dict[str, Any]) -> str:
    if u.get("halt"):
        return f"{node}: stop ({u['halt'].status}): {u['halt'].reason}"
    if u.get("format_error"):
        return f"{node}: unusable reply: {u['format_error'].problem}"
    if node == "planner" and u.get("plan"):
        return f"planner: plan for a {u['plan'].category} kernel"
    if node == "dsl_writer" and u.get("dsl_check"):
        c = u["dsl_check"]
        return f"dsl_writer: DSL v{u.get('dsl_version')} check {'passed' if c.ok else 'failed at ' + c.stage}: " \
               f"{c.summary}"
    if node == "lowerer":
        if u.get("failure"):
            return f"lowerer: {u['failure'].subject} failed: {u['failure'].summary[:300]}"
        holes = u.get("holes") or []
        return f"lowerer: project v{u.get('project_version')}" + (f" ({len(holes)} hole(s) filled)" if holes else "")
    if node == "verify" and u.get("verdict"):
        v = u["verdict"]
        return f"verify: {v.status}" + (f" at {v.stage}" if v.status != "pass" else "") + f": {v.summary}"
    if node == "debugger" and u.get("feedback"):
        fb = u["feedback"]
        return f"debugger: fault sent to {fb.to}" + (" with a ready fix" if fb.code else "")
    if node == "finish":
        return f"finish: {u.get('status')}: {u.get('reason')}"
    return f"{node}: done"


def describe(mode: str, chunk: Any) -> str | None:
    if mode == "custom" and isinstance(chunk, dict):
        return f"  {chunk.get('node', '')}: {chunk.get('message', '')}"
    if mode != "updates" or not isinstance(chunk, dict):
        return None
    lines = []
    for node, update in chunk.items():
        if node == "__interrupt__":
            lines.append("paused for review: " + "; ".join(str(i.value.get("question", "")) for i in update))
        elif isinstance(update, dict):
            lines.append(_node_line(node, update))
    return "\n".join(lines) or None
