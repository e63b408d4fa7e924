"""The estimate at the task's shapes is checked against what the referee judged: instruction kinds the
kernel ran only there (a SyncAll path taken past some size) are named, and the performance phase does not
keep a variant whose speed comes from them."""
from __future__ import annotations

from kernelwright.agent.perf.search import Candidate, Search
from kernelwright.agent.perf.speed import Speed
from kernelwright.tools.perf.trace import KernelTrace, LaunchTrace, TraceBuilder
from kernelwright.tools.referee.speed_paths import instruction_kinds, unjudged_kinds, unjudged_note


def _trace(*blocks: TraceBuilder) -> KernelTrace:
    return KernelTrace(launches=[LaunchTrace(block_dim=len(blocks), blocks=[b.build(i) for i, b in enumerate(blocks)])])


def _rows(n: int, *, sync: bool = False, cast: bool = False) -> TraceBuilder:
    b = TraceBuilder()
    for _ in range(n):
        b.copy("GM", "UB", 4096, gm_addr=0)
        b.vec("Add", "float", 8)
        if cast:
            b.vec("Cast", "half", 8)
        b.copy("UB", "GM", 4096, gm_addr=1 << 20)
    if sync:
        b.sync_all()
        b.copy("GM", "UB", 32)
    return b


def test_kinds_name_copies_by_path_and_vector_work_by_api_and_dtype():
    kinds = instruction_kinds(_trace(_rows(2, sync=True)))
    assert kinds == {"copy GM->UB", "copy UB->GM", "Add float", "SyncAll", "PipeBarrier"}


def test_an_extended_blocks_kinds_are_read_up_to_its_first_repeat():
    from dataclasses import replace
    b = _rows(6).build()
    per = len(b.records) // 6
    assert instruction_kinds(_trace(_rows(6))) == {"copy GM->UB", "copy UB->GM", "Add float"}
    # the repeats are the last period again: reading up to the first one gives the same kinds
    ext = KernelTrace(launches=[LaunchTrace(block_dim=1, blocks=[replace(b, period=(2 * per, per))])])
    assert instruction_kinds(ext) == instruction_kinds(_trace(_rows(6)))


def test_what_only_the_task_shapes_ran_is_named_and_more_iterations_are_not():
    judged = [_trace(_rows(1), _rows(2)), None]                # a judged run without a trace counts for nothing
    assert unjudged_kinds(_trace(_rows(40), _rows(40)), judged) == []      # longer loops, same kinds
    found = unjudged_kinds(_trace(_rows(40, sync=True), _rows(40, cast=True)), judged)
    assert found == ["Cast half", "PipeBarrier", "SyncAll"]
    note = unjudged_note(found)
    assert "SyncAll" in note and "not verified" in note
    assert unjudged_note([]) == ""


def _cand(label: str, us: float, unjudged: list[str]) -> Candidate:
    return Candidate(label=label, source=label, status="passed",
                     speed=Speed(kind="estimate", kernel_us=us, at="task", unjudged=unjudged))


def test_the_phase_does_not_keep_a_variant_faster_only_through_an_unjudged_path():
    """The model-in-the-loop round s8: an optimiser proposal for group_norm took a team-of-blocks path with a
    SyncAll only at the task's shapes (S >= 16384), estimated 1.5x faster, while every judged (shrunk) case took
    the old path. That speed belongs to a program nobody verified."""
    start = _cand("original", 16000.0, [])
    s = Search(best=start, start=start)
    team = _cand("optimiser 1", 11000.0, ["SyncAll", "copy UB->GM"])
    assert not s.consider(team, 0.005)
    assert s.best is start and team.status == "unverified" and "SyncAll" in team.why and s.judged == 1
    # the original's own unjudged kinds (a builtin long-row path) do not hold back a variant with the same ones
    start = _cand("original", 2000.0, ["SyncAll"])
    s = Search(best=start, start=start)
    assert s.consider(_cand("tile x2", 1800.0, ["SyncAll"]), 0.005)
    # a slower variant is simply not kept, whatever it ran
    slower = _cand("blocks /2", 2500.0, ["Cast half"])
    assert not s.consider(slower, 0.005) and slower.status == "passed"
