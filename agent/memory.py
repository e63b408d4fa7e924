"""After a repaired run passes, remember the repair in the knowledge base's error->fix memory (when
retrieval is on), so the next run that meets a similar error finds what fixed it."""
from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any

from kernelwright.agent.state import RunState
from kernelwright.agent.trajectory import Artifacts


def _sources(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): p.read_text(encoding="utf-8", errors="replace")
            for p in sorted(root.rglob("*")) if p.is_file() and p.suffix in (".cpp", ".h")}


def project_diff(art: Artifacts, before: int, after: int) -> str:
    old, new = _sources(art.root / f"project/v{before}"), _sources(art.root / f"project/v{after}")
    out: list[str] = []
    for path in sorted(old.keys() | new.keys()):
        out += difflib.unified_diff(old.get(path, "").splitlines(), new.get(path, "").splitlines(),
                                    f"a/{path}", f"b/{path}", n=2, lineterm="")
    return "\n".join(out)


def remember_fix(state: RunState, retriever: Any) -> str | None:
    """The id of the recorded fix, or None when there is nothing to record or no memory to record in."""
    fixes = getattr(retriever, "fixes", None)
    failed = [v for v in state.get("verdicts") or [] if v.status == "fail" and v.project_version]
    if fixes is None or not failed or not state.get("project_version"):
        return None
    art = Artifacts(state["artifacts"])
    diff = project_diff(art, failed[0].project_version, state["project_version"])
    decisions = [e for e in art.events() if e["node"] == "debugger" and e.get("outcome") == "decision"]
    explanation = decisions[-1]["explanation"] if decisions else "repaired by the agent"
    if not diff.strip():
        return None
    error = "\n".join([failed[0].summary, *failed[0].details])
    return fixes.record(error, diff, explanation, {"task": state["task"].name, "run": state.get("run_id", ""),
                                                   "stage": failed[0].stage}).id
