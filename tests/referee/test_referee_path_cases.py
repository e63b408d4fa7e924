"""Path cases: when the kernel at the task's shapes runs instruction kinds no judged (shrunk) case ran, the
referee judges the case once more with one shrunk dim kept at the task's size, so the path the task's shapes
take is checked, not only estimated."""
from __future__ import annotations

from types import SimpleNamespace

from kernelwright.tools.perf.trace import KernelTrace, LaunchTrace, TraceBuilder
from kernelwright.tools.referee.path_cases import path_cases
from kernelwright.tools.referee.speed import FullShapes
from kernelwright.tools.referee.verdict import CaseRun
from kernelwright.tools.tasks.shrink import ShrinkPlan


def _trace(long_rows: bool) -> KernelTrace:
    b = TraceBuilder().copy("GM", "UB", 4096).vec("Add", "float", 8).copy("UB", "GM", 4096)
    if long_rows:
        b.sync_all()
    return KernelTrace(launches=[LaunchTrace(block_dim=1, blocks=[b.build(0)])])


def _ran(long_rows: bool):
    return SimpleNamespace(result=SimpleNamespace(trace=_trace(long_rows)))


SHRUNK = ShrinkPlan(mapping={4096: 16, 393216: 256}, elements_before=4096 * 393216, elements_after=4096, budget=1 << 20)


def _plan_keeping(d: int) -> ShrinkPlan:
    kept = {k: v for k, v in SHRUNK.mapping.items() if k != d}
    return ShrinkPlan(mapping=kept, elements_before=SHRUNK.elements_before, elements_after=16 * d, budget=1 << 22)


def _runner(outcomes: list[str], s, takes_path: set[int]):
    """A run_trial stand-in: the kernel takes the long-row path when dim 393216 is kept whole."""
    calls = []

    def run(s_, case, seed, trial, shapes, plan, label="trial"):
        calls.append((seed, plan.mapping, label))
        status = outcomes[len(calls) - 1]
        r = CaseRun(case="default", trial=trial, seed=seed, label=label, status="fail" if status == "timeout" else status,
                    run_status="timeout" if status == "timeout" else "ok", reason=status)
        if status == "pass":
            s_.ran.append(_ran(393216 not in plan.mapping and 393216 in takes_path))
        return r
    return run, calls


def test_a_path_only_the_task_shapes_take_is_judged_by_keeping_its_dim():
    s = SimpleNamespace(ran=[_ran(False)])
    run, calls = _runner(["pass"], s, {393216})
    runs = path_cases(s, "case", None, SHRUNK, FullShapes(SimpleNamespace(trace=_trace(True))), _plan_keeping,
                      lambda p: True, run)
    assert [r.label for r in runs] == ["path case"] and runs[0].status == "pass"
    assert calls[0][1] == {4096: 16}                    # the largest shrunk dim (the row) kept first
    assert "SyncAll" in runs[0].notes[-1] and len(s.ran) == 2


def test_a_failing_path_case_stops_and_is_returned_for_the_verdict():
    s = SimpleNamespace(ran=[_ran(False)])
    run, calls = _runner(["fail", "pass"], s, {393216})
    runs = path_cases(s, "case", None, SHRUNK, FullShapes(SimpleNamespace(trace=_trace(True))), _plan_keeping,
                      lambda p: True, run)
    assert [r.status for r in runs] == ["fail"] and len(calls) == 1


def test_a_timed_out_path_case_is_said_not_held_against_the_kernel_and_the_next_dim_is_tried():
    s = SimpleNamespace(ran=[_ran(False)])
    run, calls = _runner(["timeout"], s, {393216})
    runs = path_cases(s, "case", None, SHRUNK, FullShapes(SimpleNamespace(trace=_trace(True))), _plan_keeping,
                      lambda p: True, run)
    assert runs[0].status == "skipped" and "timed out" in runs[0].reason and len(calls) == 1


def test_no_path_case_when_the_judged_runs_ran_every_kind_or_the_plan_is_too_big():
    s = SimpleNamespace(ran=[_ran(True)])
    run, calls = _runner(["pass"], s, set())
    full = FullShapes(SimpleNamespace(trace=_trace(True)))
    assert path_cases(s, "case", None, SHRUNK, full, _plan_keeping, lambda p: True, run) == [] and not calls
    s = SimpleNamespace(ran=[_ran(False)])
    assert path_cases(s, "case", None, SHRUNK, full, _plan_keeping, lambda p: False, run) == [] and not calls
    # a kept dim that does not take the path: both dims tried, then the search ends (PATH_TRIES)
    run, calls = _runner(["pass", "pass"], s, set())
    runs = path_cases(s, "case", None, SHRUNK, full, _plan_keeping, lambda p: True, run)
    assert len(runs) == 2 and [c[1] for c in calls] == [{4096: 16}, {393216: 256}]


def test_a_path_case_keeps_what_the_judged_case_kept():
    """group_norm [128, 64, 512, 512] was judged at [24, 64, 16, 16]; a path case that shrank the 64 channels too
    remapped the group count 8 -> 2, which the kernel (the count baked in) never saw: a false failure. Group norm
    channels the judged plan left whole stay whole in a path case; other dims may shrink."""
    from kernelwright.tools.referee.verify import _unshrunk
    from kernelwright.tools.tasks.reference import RefShapes, RefValue
    x = RefValue(kind="tensor", shape=[128, 64, 512, 512], dtype="float32")
    w = RefValue(kind="tensor", shape=[64], dtype="float32")
    shapes = RefShapes(args=[x], init=[], params=[w, w], outputs=[x], groups={64: 8})
    plan = ShrinkPlan(mapping={128: 24, 512: 16}, elements_before=1, elements_after=1, budget=1)
    assert _unshrunk(shapes, plan) == {64}
    # a layer norm's 64 (batch and features) left whole by the judged case may shrink in a path case: [2, 2, 256, 256]
    assert _unshrunk(shapes.model_copy(update={"groups": {}}), ShrinkPlan(
        mapping={256: 8}, elements_before=1, elements_after=1, budget=1)) == set()
