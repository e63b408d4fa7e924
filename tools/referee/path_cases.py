"""Judged cases for the path a kernel takes at the task's own shapes.

A kernel judged at shrunk shapes may take another path at the task's (a row longer than the UB streamed in
chunks, split over blocks with a SyncAll): the trace at the task's shapes (speed_shapes.py) then runs
instruction kinds no judged run did (speed_paths.py), and that path would be estimated but never checked.
Here the referee looks for a case that takes it: the same case shrunk again with one of the shrunk dims kept
at the task's size (the largest first: row and reduction lengths; what the judged case kept stays kept),
within PATH_BUDGET elements, run and
compared like any trial. A passing path case joins the judged runs (so the kinds it ran count as judged); a
failing one fails the verdict, as the kernel computes wrong values on the path the task's shapes take. A
path case that cannot run here (past the budget, a timeout) is said, not held against the kernel.

What it cannot do: a path that only the task's full size takes (every dim at once, or a size past the budget)
stays unjudged, and the estimate says so (speed_paths.unjudged_note)."""
from __future__ import annotations

from collections.abc import Callable

from kernelwright.tools.referee.speed import FullShapes
from kernelwright.tools.referee.speed_paths import instruction_kinds, judged_kinds
from kernelwright.tools.referee.verdict import CaseRun
from kernelwright.tools.tasks.shrink import ShrinkPlan

PATH_BUDGET = 1 << 22          # elements of a path case's inputs: 4 judging budgets (toolchain.EMULATION_BUDGET)
PATH_TRIES = 2                 # path cases run at most, per verdict
PATH_SEED = 7919


def path_cases(s, case, shapes, plan: ShrinkPlan, full: FullShapes | None,
               plan_keeping: Callable[[int], ShrinkPlan], held_ok: Callable[[ShrinkPlan], bool],
               run_trial: Callable[..., CaseRun]) -> list[CaseRun]:
    """The path cases run for `case` (judged at `plan`), in order; `s.ran` holds the judged runs so far
    and gains each passing one. `plan_keeping(d)`: the case shrunk to PATH_BUDGET with dim value d kept."""
    if full is None or full.result is None or full.result.trace is None or not plan.mapping:
        return []
    target = instruction_kinds(full.result.trace)
    judged = judged_kinds(r.result.trace for r in s.ran)
    missing = sorted(target - judged)
    runs: list[CaseRun] = []
    seen = {tuple(sorted(plan.mapping.items()))}
    for d in sorted(plan.mapping, reverse=True):
        if not missing or len(runs) >= PATH_TRIES:
            break
        p = plan_keeping(d)
        key = tuple(sorted(p.mapping.items()))
        if not p.fits or key in seen or not held_ok(p):
            continue
        seen.add(key)
        run = run_trial(s, case, PATH_SEED + len(runs), 0, shapes, p, label="path case")
        run.notes.append(f"a path case: dim {d} kept at the task's size, as the task's shapes run instruction kinds "
                         f"the shrunk cases did not ({', '.join(missing[:6])})")
        if run.status == "fail" and run.run_status == "timeout":
            run.status = "skipped"           # the emulation's limit, not the kernel's fault: said, not held against it
            run.reason = f"the path case timed out on the emulation: not judged ({run.reason[:200]})"
        runs.append(run)
        if run.status != "pass":
            break
        judged |= judged_kinds([s.ran[-1].result.trace])     # a passing trial joins s.ran (case_runner.run_trial)
        missing = sorted(target - judged)
    return runs
