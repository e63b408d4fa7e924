"""The knob search: starting from the passing program, turn one tiling knob at a time
(tools/perf/knobs.py), judge the variant exactly as the kernel was judged (the DSL check, then the
same referee with the same settings, whose measure stage gives the time), and move to a variant only
when it passes and is faster by at least `min_gain`. A variant that fails anything is dropped: the
kept kernel always has a passing verdict. Greedy: after a move, the knobs are read again from the new
program (a tile doubled once may double again), and the reverse of a move is not tried."""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from kernelwright.agent.perf.speed import Speed
from kernelwright.tools.perf.knobs import Turn, turns

REVERSE = {"x2": "/2", "/2": "x2"}


class Candidate(BaseModel):
    """One variant and what the judge said of it."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    label: str                         # the knob turned ("tile:chunk x2"), or "optimiser 1"
    source: str
    status: str                        # passed | rejected (DSL check, lowering) | failed (referee) | error | unmeasured
    #                                    | unverified (faster only through instructions no judged case ran)
    why: str = ""
    speed: Speed | None = None
    project: Any = None                # the KernelProject judged
    verdict: Any = None                # the referee's Verdict
    seconds: float = 0.0
    spent: dict[str, float] = Field(default_factory=dict)   # seconds by step (check, lower, build, referee)

    def brief(self) -> dict[str, Any]:
        return {"label": self.label, "status": self.status, "why": self.why[:300], "seconds": round(self.seconds, 1),
                "spent": {k: round(v, 1) for k, v in self.spent.items()},
                "kernel_us": self.speed.kernel_us if self.speed else None,
                "speedup": self.speed.speedup if self.speed else None, "at": self.speed.at if self.speed else ""}


Judge = Callable[[str, str], Candidate]       # (label, DSL source) -> the judged candidate


class Search(BaseModel):
    """The state of one phase: the best passing candidate so far and every candidate judged."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    best: Candidate
    start: Candidate
    tried: list[Candidate] = Field(default_factory=list)
    judged: int = 0                    # candidates that reached the referee (the budget counts these)
    started_at: float = Field(default_factory=time.monotonic)

    def out_of_budget(self, max_candidates: int, max_seconds: float) -> str | None:
        if self.judged >= max_candidates:
            return f"{self.judged} candidates judged (cap perf.max_candidates={max_candidates})"
        spent = time.monotonic() - self.started_at
        if spent >= max_seconds:
            return f"{spent:.0f} s spent (cap perf.max_seconds={max_seconds:.0f})"
        return None

    def consider(self, c: Candidate, min_gain: float) -> bool:
        """Book a judged candidate; True when it becomes the best."""
        self.tried.append(c)
        if c.status in ("passed", "failed", "error", "unmeasured"):
            self.judged += 1
        # only estimates at the same shapes compare: a candidate with no estimate at the task's shapes (its trace-only
        # run there broke a rule, e.g. a doubled tile past UB) is not faster than a kernel estimated there
        faster = (c.status == "passed" and c.speed is not None and self.best.speed is not None
                  and c.speed.kind == self.best.speed.kind and c.speed.at == self.best.speed.at
                  and c.speed.kernel_us < self.best.speed.kernel_us * (1.0 - min_gain))
        if c.status == "passed" and c.speed and self.best.speed and c.speed.at != self.best.speed.at and not c.why:
            # a time at other shapes is no comparison (22 us at the shrunk shapes against 12 ms at the task's)
            c.why = (f"passed, but estimated at the {c.speed.at} shapes only"
                     + (f" ({' '.join(c.speed.why_not_task.split())[:200]})" if c.speed.why_not_task else "")
                     + f": not comparable with the kernel's estimate at the {self.best.speed.at} shapes, not kept")
        new = sorted(set(c.speed.unjudged) - set(self.start.speed.unjudged)) if faster and self.start.speed else []
        if new:    # faster only where no judged case ran: correctness is not traded for an unverified speed
            c.status = "unverified"
            c.why = (f"passed at the judged (shrunk) shapes and estimated faster, but at the task's shapes it runs "
                     f"instruction kinds no judged case ran ({', '.join(new[:6])}): that path was not verified, so "
                     "it is not kept; a variant that takes the same path at every size can be")
            return False
        if faster:
            self.best = c
        return faster


def knob_search(search: Search, judge: Judge, *, max_candidates: int, max_seconds: float, min_gain: float,
                tiling: Callable[[str], Any] | None = None) -> str:
    """Greedy descent over the knobs of `search.best`; returns why it stopped. `tiling(source)` gives a
    program's tiling values at the shapes that ran (None: unknown): a tile or block knob that leaves them
    as they were (clamped away) is not judged."""
    skip: set[tuple[str, str]] = set()
    seen = {search.best.source}
    queue: list[Turn] = turns(search.best.source)
    while queue:
        stop = search.out_of_budget(max_candidates, max_seconds)
        if stop:
            return stop
        t = queue.pop(0)
        if (t.knob, t.setting) in skip or t.source in seen:
            continue
        seen.add(t.source)
        if tiling is not None and t.knob != "double_buffer":
            now = tiling(t.source)
            if now is not None and now == tiling(search.best.source):
                search.tried.append(Candidate(label=t.label, source=t.source, status="rejected",
                                              why="the tiling clamps the knob away: the same values at these shapes"))
                skip.add((t.knob, t.setting))
                continue
        c = judge(t.label, t.source)
        if search.consider(c, min_gain):
            skip.add((t.knob, REVERSE.get(t.setting, t.setting)))
            queue = turns(c.source)
        else:
            skip.add((t.knob, t.setting))
    return "no knob left to turn"
