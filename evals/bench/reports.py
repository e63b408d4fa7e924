"""Write a bench's reports (`summary.json`, `summary.csv`, `report.html`) and its text summary."""
from __future__ import annotations

import csv
from pathlib import Path

from kernelwright.evals.bench.metrics import Summary, csv_rows, rate, summarize
from kernelwright.evals.bench.records import TaskRecord, write_json_atomic


def write_reports(out: Path, records: list[TaskRecord], *, suite: str, model: str, backend: str, tolerance: str,
                  attempts: int, total_tasks: int) -> Summary:
    from kernelwright.evals.bench.html import render
    s = summarize(records, suite=suite, model=model, backend=backend, tolerance=tolerance, attempts=attempts,
                  total_tasks=total_tasks)
    write_json_atomic(out / "summary.json", s.model_dump())
    rows = csv_rows(s)
    with (out / "summary.csv").open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    (out / "report.html").write_text(render(s, records), encoding="utf-8")
    return s


def text_summary(s: Summary) -> str:
    o = s.overall
    lines = [f"{s.finished_tasks}/{s.total_tasks} task(s), {o.runs} run(s) on {s.backend} with {s.model}: "
             f"compile {rate(o.compile_rate)}, correct {rate(o.correct_rate)}, faster than eager {rate(o.faster_rate)}"
             + (f", est. faster than eager {rate(o.est_faster_rate)}" if o.est_faster_rate is not None else "")
             + "".join(f", {k} {rate(v)}" for k, v in o.pass_at_k.items())]
    if o.fast_p:
        lines.append(f"fast_p ({o.fast_p_source}): " + ", ".join(f"{k} {rate(v)}" for k, v in o.fast_p.items()))
    if o.fast_p_before:
        lines.append("before the performance phase: " + ", ".join(f"{k} {rate(v)}" for k, v in o.fast_p_before.items())
                     + (f"; geomean speed-up {o.speedup_geomean_before:.3f}x -> "
                        f"{(o.speedup_geomean if o.fast_p_source == 'measured' else o.est_speedup_geomean) or 0:.3f}x"
                        if o.speedup_geomean_before else ""))
    if len(o.pass_by_round) > 1:
        lines.append("pass by repair round: " + ", ".join(f"{i}: {rate(v)}" for i, v in enumerate(o.pass_by_round)))
    if o.prompt_tokens or o.cost_usd:
        lines.append(f"tokens: {o.prompt_tokens} prompt + {o.completion_tokens} completion, cost ${o.cost_usd:.4f}")
    width = max((len(k) for k in s.by_category), default=8)
    for name, g in s.by_category.items():
        lines.append(f"  {name:<{width}}  {g.tasks:3d} task(s)  compile {rate(g.compile_rate):>6}  "
                     f"correct {rate(g.correct_rate):>6}")
    lines += s.notes
    return "\n".join(lines)
