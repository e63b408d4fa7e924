"""Bench metrics: compile / correct / faster-than-eager rates, pass@k (the unbiased estimator of Chen
et al. 2021), pass rate by repair round (pass before and after each debugger round), tokens and cost;
overall, per category and per level. Every record is in the denominator: a task whose generation
failed, hung or crashed counts as not compiled and not correct."""
from __future__ import annotations

from collections import defaultdict
from math import comb
from typing import Any

from pydantic import BaseModel, Field

from kernelwright.evals.bench.records import RETRIED, TaskRecord


def pass_at_k(n: int, c: int, k: int) -> float:
    """P(at least one of k samples, drawn without replacement from n of which c pass, passes)
    = 1 - C(n-c, k) / C(n, k)."""
    if k > n or n <= 0:
        raise ValueError(f"pass@{k} needs at least k samples (have n={n})")
    if n - c < k:
        return 1.0
    return 1.0 - comb(n - c, k) / comb(n, k)


def ks_for(n: int) -> list[int]:
    """The k values reported for n attempts per task: 1, 5, 10 up to n, and n itself."""
    return sorted({k for k in (1, 5, 10) if k <= n} | {n}) if n > 0 else []


class Group(BaseModel):
    """The metrics of one group of records (all, one category, one level)."""

    tasks: int
    runs: int
    compile_rate: float
    correct_rate: float
    faster_rate: float | None          # None: no run was timed (the sim does not time kernels)
    est_faster_rate: float | None = None   # correct and estimated faster than eager (cost model; None: no estimate)
    fast_p: dict[str, float] = Field(default_factory=dict)   # fast_0.8 ...: correct and speed-up > p, over all runs
    fast_p_source: str = ""            # "measured" speed-ups when any run was timed, else "estimated"
    fast_p_before: dict[str, float] = Field(default_factory=dict)   # fast_p of the kernels before the performance
    speedup_geomean_before: float | None = None                     # phase (runs where it ran; same source)
    pass_at_k: dict[str, float] = Field(default_factory=dict)
    pass_by_round: list[float] = Field(default_factory=list)   # [i]: passed with <= i debugger rounds
    speedup_geomean: float | None = None
    est_speedup_geomean: float | None = None
    est_at_task_shapes: int = 0        # estimates made at the task's own shapes (the others at shrunk shapes)
    statuses: dict[str, int] = Field(default_factory=dict)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    seconds: float = 0.0


def _geomean(xs: list[float]) -> float | None:
    import math
    xs = [x for x in xs if x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


FAST_P = (0.8, 1.0, 1.5)


def fast_p(records: list[TaskRecord], before: bool = False) -> tuple[dict[str, float], str]:
    """KernelBench's fast_p: the share of runs that are correct and more than p times as fast as eager, on
    measured speed-ups when the backend timed any run, else on the cost model's estimates. `before`: of
    the kernels as they were before the performance phase (empty when the phase ran in no run)."""
    measured = any(r.speedup is not None for r in records)
    after = (lambda r: r.speedup) if measured else (lambda r: r.est_speedup)
    key = ((lambda r: r.speedup_before) if measured else (lambda r: r.est_speedup_before)) if before else after
    if not records or not any(key(r) is not None for r in records):
        return {}, ""
    return ({f"fast_{p:g}": round(sum(bool(r.correct and (key(r) or 0) > p) for r in records) / len(records), 4)
             for p in FAST_P}, "measured" if measured else "estimated")


def group(records: list[TaskRecord], attempts: int) -> Group:
    by_task: dict[str, list[TaskRecord]] = defaultdict(list)
    for r in records:
        by_task[r.task].append(r)
    n_runs = len(records) or 1
    timed = [r for r in records if r.speedup is not None]
    pk: dict[str, float] = {}
    for k in ks_for(attempts):
        vals = [pass_at_k(len(rs), sum(r.correct for r in rs), k) for rs in by_task.values() if len(rs) >= k]
        if vals:
            pk[f"pass@{k}"] = round(sum(vals) / len(vals), 4)
    rounds = max((r.repairs for r in records), default=0)
    by_round = [round(sum(r.correct and r.repairs <= i for r in records) / n_runs, 4) for i in range(rounds + 1)]
    statuses: dict[str, int] = defaultdict(int)
    for r in records:
        statuses[r.status] += 1
    estimated = [r for r in records if r.est_speedup is not None]
    fp, fp_source = fast_p(records)
    befores = [r.speedup_before if fp_source == "measured" else r.est_speedup_before for r in records]
    return Group(tasks=len(by_task), runs=len(records), compile_rate=round(sum(r.compiled for r in records) / n_runs, 4),
                 correct_rate=round(sum(r.correct for r in records) / n_runs, 4),
                 faster_rate=round(sum(r.speedup > 1.0 for r in timed) / n_runs, 4) if timed else None,
                 est_faster_rate=round(sum(r.correct and r.est_speedup > 1.0 for r in estimated) / n_runs, 4)
                 if estimated else None, fast_p=fp, fast_p_source=fp_source, fast_p_before=fast_p(records, True)[0],
                 speedup_geomean_before=_geomean([b for b in befores if b is not None]),
                 est_speedup_geomean=_geomean([r.est_speedup for r in estimated]),
                 est_at_task_shapes=sum(r.est_at == "task" for r in estimated),
                 pass_at_k=pk, pass_by_round=by_round, speedup_geomean=_geomean([r.speedup for r in timed]),
                 statuses=dict(sorted(statuses.items())), prompt_tokens=sum(r.prompt_tokens for r in records),
                 completion_tokens=sum(r.completion_tokens for r in records),
                 cost_usd=round(sum(r.cost_usd for r in records), 6), seconds=round(sum(r.seconds for r in records), 1))


class Summary(BaseModel):
    suite: str
    model: str
    backend: str
    tolerance: str
    attempts: int
    total_tasks: int                   # tasks selected
    finished_tasks: int                # tasks with at least one record
    overall: Group
    by_category: dict[str, Group]
    by_level: dict[str, Group]
    notes: list[str] = Field(default_factory=list)


def summarize(records: list[TaskRecord], *, suite: str, model: str, backend: str, tolerance: str, attempts: int,
              total_tasks: int) -> Summary:
    lost = sum(r.status in RETRIED for r in records)       # no verdict: left out of every rate, and noted
    records = [r for r in records if r.status not in RETRIED]
    cats: dict[str, list[TaskRecord]] = defaultdict(list)
    levels: dict[str, list[TaskRecord]] = defaultdict(list)
    for r in records:
        cats[r.category or "(none)"].append(r)
        levels[r.level or "(none)"].append(r)
    overall = group(records, attempts)
    notes = []
    if overall.faster_rate is None:
        notes.append(f"faster-than-eager: n/a (the {backend} backend did not time any kernel)")
    if overall.est_faster_rate is not None:
        n_est = sum(r.est_speedup is not None for r in records)
        notes.append("est. faster than eager and fast_p: estimates of the cost model over the emulation's instruction "
                     "trace against the reference's ATen ops at the same shapes, not measurements; "
                     f"{overall.est_at_task_shapes} of {n_est} at the task's own shapes, the others at the shrunk "
                     "shapes the emulation judged (launch-dominated)")
    if lost:
        notes.append(f"{lost} run(s) lost to infrastructure (a node or Ray worker died) are left out of the rates; "
                     "rerun the same command to run them again")
    unfinished = total_tasks - overall.tasks
    if unfinished:
        notes.append(f"{unfinished} selected task(s) have no result yet; rerun the same command to finish them")
    return Summary(suite=suite, model=model, backend=backend, tolerance=tolerance, attempts=attempts,
                   total_tasks=total_tasks, finished_tasks=overall.tasks, overall=overall,
                   by_category={k: group(v, attempts) for k, v in sorted(cats.items())},
                   by_level={k: group(v, attempts) for k, v in sorted(levels.items())}, notes=notes)


def rate(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}%"


def csv_rows(s: Summary) -> list[dict[str, Any]]:
    """One row for the whole run, then one per category and one per level."""
    ks = ks_for(s.attempts)
    rounds = max(len(s.overall.pass_by_round), 1)
    rows = []
    groups = [("all", "all", s.overall)] + [("category", k, g) for k, g in s.by_category.items()] + \
             [("level", k, g) for k, g in s.by_level.items()]
    for scope, name, g in groups:
        row: dict[str, Any] = {"scope": scope, "group": name, "tasks": g.tasks, "runs": g.runs,
                               "compile_rate": g.compile_rate, "correct_rate": g.correct_rate,
                               "faster_rate": "n/a" if g.faster_rate is None else g.faster_rate,
                               "est_faster_rate": "n/a" if g.est_faster_rate is None else g.est_faster_rate}
        row |= {f"fast_{p:g}": g.fast_p.get(f"fast_{p:g}", "n/a") for p in FAST_P} | {"fast_p_source": g.fast_p_source}
        row |= {f"fast_{p:g}_before_perf": g.fast_p_before.get(f"fast_{p:g}", "n/a") for p in FAST_P}
        row |= {f"pass@{k}": g.pass_at_k.get(f"pass@{k}", "") for k in ks}
        row |= {f"pass_round_{i}": (g.pass_by_round[i] if i < len(g.pass_by_round) else
                                    (g.pass_by_round[-1] if g.pass_by_round else 0.0)) for i in range(rounds)}
        row |= {"prompt_tokens": g.prompt_tokens, "completion_tokens": g.completion_tokens, "cost_usd": g.cost_usd,
                "seconds": g.seconds}
        rows.append(row)
    return rows
