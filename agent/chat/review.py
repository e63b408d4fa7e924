"""The answers a person gives at a review point, turned into the graph's review answers
(agent.nodes.review): approve, edit (the plan as JSON, or the DSL, in $EDITOR), a hint for the node
that owns the step, retry, or pause. At the accept point the kernel itself can be edited too: the
edited project is re-verified and kept beside the agent's (`edited/`), which /export then uses."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

from kernelwright.agent.chat.io import EditorError, edit_text

CHOICES = {"a": "approve", "e": "edit", "h": "hint", "r": "retry", "p": "pause"}
RETRY = "Try this step again from the start; the last attempt was not good enough."


def options(kind: str) -> str:
    extra = "  [k] edit the kernel" if kind == "accept" else ""
    what = "the plan" if kind == "plan" else "the DSL"
    return f"[a]pprove  [e]dit {what}  [h]int TEXT  [r]etry  [p]ause{extra}  (/help for commands)"


def edit_answer(payload: dict[str, Any], say: Callable[[str], None]) -> dict[str, Any] | None:
    """Open the plan or the DSL in $EDITOR; the review answer, or None when nothing usable changed."""
    from kernelwright.agent.state import Plan
    kind = payload.get("kind")
    try:
        if kind == "plan":
            before = json.dumps(payload.get("plan") or {}, indent=1)
            after = edit_text(before, ".json")
            if after.strip() == before.strip():
                say("the plan is unchanged")
                return None
            try:
                return {"action": "edit", "plan": Plan.model_validate(json.loads(after)).model_dump()}
            except ValueError as e:
                say(f"the edited plan is not a valid plan: {str(e).splitlines()[0]}")
                return None
        before = payload.get("dsl") or ""
        after = edit_text(before, ".dsl.py")
    except EditorError as e:
        say(str(e))
        return None
    if after.strip() == before.strip():
        say("the DSL is unchanged")
        return None
    return {"action": "edit", "dsl": after}


def parse_choice(line: str) -> tuple[str, str]:
    """(action, rest): `h use a bigger tile` -> ("hint", "use a bigger tile")."""
    head, _, rest = line.strip().partition(" ")
    return CHOICES.get(head.lower(), CHOICES.get(head[:1].lower(), head.lower())) if head else "", rest.strip()


def edit_kernel(artifacts: Path, task: str, say: Callable[[str], None], show: Callable[[dict], None]) -> Path | None:
    """Edit the final kernel's device source, re-verify it, keep it in `edited/`."""
    from kernelwright.agent.api_verify import verify
    from kernelwright.agent.nodes.verify import brief
    from kernelwright.tools.project import KernelProject

    src_dir = artifacts / "edited" if (artifacts / "edited").is_dir() else artifacts / "kernel"
    if not src_dir.is_dir():
        say("there is no kernel project yet")
        return None
    project = KernelProject.from_path(src_dir)
    main = project.kernel_sources()[0]
    try:
        after = edit_text(project.files[main], Path(main).suffix)
    except EditorError as e:
        say(str(e))
        return None
    if after == project.files[main]:
        say("the kernel is unchanged")
        return None
    edited = project.model_copy(update={"files": {**project.files, main: after}})
    target = artifacts / "edited"
    import shutil
    shutil.rmtree(target, ignore_errors=True)
    edited.write(target)
    say(f"verifying the edited kernel ({main}) ...")
    show(brief(verify(edited, task), 0, "").model_dump())
    say(f"kept in {target}; /export writes it (the agent's own kernel stays in {artifacts / 'kernel'})")
    return target
