"""Judging one candidate program exactly as the agent judged the kernel: the DSL check (parse, rules,
the interpreter against the reference) with the run's tolerance, the generator, the holes filled
with the bodies the kernel already passed with, then the referee with the verify node's settings. Its
verdict is saved beside the run's other artifacts (perf/<n>/)."""
from __future__ import annotations

import time
from typing import Any

from kernelwright.agent import dslkit
from kernelwright.agent.deps import Deps
from kernelwright.agent.nodes.common import progress
from kernelwright.agent.nodes.verify import referee_kwargs
from kernelwright.agent.perf.search import Candidate
from kernelwright.agent.perf.speed import speed_of
from kernelwright.agent.state import HoleWork, RunState
from kernelwright.agent.trajectory import Artifacts


def _filled(holes: list[HoleWork], done: list[HoleWork]) -> list[HoleWork] | str:
    fills = {h.name: h.fill for h in done if h.fill}
    missing = [h.name for h in holes if h.name not in fills]
    if missing:
        return f"the variant has extern holes the passing kernel did not ({', '.join(missing)})"
    return [h.model_copy(update={"fill": fills[h.name]}) for h in holes]


class StateJudge:
    """`judge(label, source) -> Candidate` for the run in `state`."""

    def __init__(self, state: RunState, deps: Deps):
        self.state, self.deps = state, deps
        self.art = Artifacts(state["artifacts"])
        self.count = 0

    def __call__(self, label: str, source: str) -> Candidate:
        from kernelwright.tools.referee import verify as referee

        start = time.monotonic()
        self.count += 1
        task, tc = self.state["task"], self.deps.config.toolchain
        where = f"perf/{self.count}"
        self.art.write(f"{where}/kernel.dsl.py", source)
        progress("perf", f"candidate {self.count}: {label}")

        spent: dict[str, float] = {}               # where a candidate's time goes (the phase's cost, per step)
        mark = [start]

        def step(name: str) -> None:
            now = time.monotonic()
            spent[name], mark[0] = now - mark[0], now

        def done(status: str, why: str = "", **kw: Any) -> Candidate:
            c = Candidate(label=label, source=source, status=status, why=why, seconds=time.monotonic() - start,
                          spent=spent, **kw)
            self.art.event("perf", candidate=self.count, **c.brief())
            return c

        check = dslkit.check(source, task, self.deps.worker(task), soc=tc.soc, tolerance=tc.tolerance)
        step("check")
        if not check.ok:
            return done("rejected", f"DSL check ({check.stage}): {check.summary}")
        lowered = dslkit.lower(source, task)
        step("lower")
        if isinstance(lowered, str):
            return done("rejected", f"lowering: {lowered}")
        project, holes = lowered
        holes = _filled(holes, self.state.get("holes") or [])
        if isinstance(holes, str):
            return done("rejected", holes)
        project = dslkit.fill_holes(project, holes)
        v = referee(task, project, self.deps.toolchain, worker=self.deps.worker(task), **referee_kwargs(self.deps))
        step("referee")
        spent["build"] = next((st.seconds or 0.0 for st in v.stages if st.name == "build"), 0.0)   # inside the referee
        self.art.write(f"{where}/verdict.json", v.model_dump_json(indent=1))
        if v.status != "pass":
            return done("failed" if v.status == "fail" else "error", f"referee: {v.summary}", verdict=v, project=project)
        speed = speed_of(v)
        if speed is None:
            return done("unmeasured", "passed, but the measure stage gave no time to compare", verdict=v, project=project)
        return done("passed", speed=speed, verdict=v, project=project)
