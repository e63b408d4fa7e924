"""`report.html`: one self-contained page (inline CSS and SVG drawn here; no scripts, no network) with
the summary tables and plots: compile/correct rate per category, pass rate by repair round, the
distribution of speedups over eager and fast_p over p (measured when the backend timed kernels, else the
cost model's estimates, labelled as such)."""
from __future__ import annotations

import math
from html import escape

from kernelwright.evals.bench.metrics import Summary, rate
from kernelwright.evals.bench.records import TaskRecord

COLORS = {"compile": "#7aa6d8", "correct": "#2e7d32", "bar": "#5b7fb5", "axis": "#555"}
CSS = """body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:1100px;color:#222}
table{border-collapse:collapse;margin:.6em 0 1.4em}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}
th{background:#f2f2f2}td.l,th.l{text-align:left}.passed{color:#2e7d32}.bad{color:#b71c1c}
svg text{font:12px system-ui,sans-serif}.note{color:#666}h2{margin-top:1.6em}"""


def _svg(width: int, height: int, body: list[str], title: str) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" '
            f'aria-label="{escape(title)}"><title>{escape(title)}</title>' + "".join(body) + "</svg>")


def category_bars(s: Summary) -> str:
    """Horizontal bars: compile and correct rate of each category."""
    cats = list(s.by_category.items())
    row, left, width = 34, 150, 420
    height = 30 + row * max(len(cats), 1)
    body = [f'<rect x="{left}" y="4" width="12" height="10" fill="{COLORS["compile"]}"/>'
            f'<text x="{left + 16}" y="13">compile</text>'
            f'<rect x="{left + 90}" y="4" width="12" height="10" fill="{COLORS["correct"]}"/>'
            f'<text x="{left + 106}" y="13">correct</text>']
    for i, (name, g) in enumerate(cats):
        y = 24 + i * row
        body.append(f'<text x="{left - 6}" y="{y + 17}" text-anchor="end">{escape(name)} ({g.tasks})</text>')
        for j, (key, value) in enumerate((("compile", g.compile_rate), ("correct", g.correct_rate))):
            w = max(value * width, 0.5)
            body.append(f'<rect x="{left}" y="{y + 2 + j * 14}" width="{w:.1f}" height="12" fill="{COLORS[key]}"/>'
                        f'<text x="{left + w + 4:.1f}" y="{y + 12 + j * 14}">{rate(value)}</text>')
    return _svg(left + width + 70, height, body, "compile and correct rate per category")


def round_bars(s: Summary) -> str:
    """Pass rate after 0, 1, 2, ... debugger rounds."""
    rounds = s.overall.pass_by_round or [0.0]
    bw, gap, h, top = 56, 18, 180, 20
    body = [f'<line x1="30" y1="{top + h}" x2="{40 + len(rounds) * (bw + gap)}" y2="{top + h}" stroke="{COLORS["axis"]}"/>']
    for i, value in enumerate(rounds):
        x, bh = 40 + i * (bw + gap), value * h
        body.append(f'<rect x="{x}" y="{top + h - bh:.1f}" width="{bw}" height="{bh:.1f}" fill="{COLORS["correct"]}"/>'
                    f'<text x="{x + bw / 2}" y="{top + h - bh - 4:.1f}" text-anchor="middle">{rate(value)}</text>'
                    f'<text x="{x + bw / 2}" y="{top + h + 16}" text-anchor="middle">{i} repair{"s" if i != 1 else ""}</text>')
    return _svg(60 + len(rounds) * (bw + gap), top + h + 26, body, "pass rate by repair round")


def _speedups(records: list[TaskRecord]) -> tuple[list[float], str]:
    """Measured speed-ups of correct kernels when any run was timed, else the cost model's estimates."""
    xs = [r.speedup for r in records if r.speedup and r.speedup > 0]
    if xs:
        return xs, "measured"
    return [r.est_speedup for r in records if r.correct and r.est_speedup and r.est_speedup > 0], "estimated"


def speedup_histogram(records: list[TaskRecord]) -> str:
    """Histogram of log2(speedup) of timed (else estimated), correct kernels, in half-octave bins."""
    xs, kind = _speedups(records)
    if not xs:
        return '<p class="note">No kernel was timed (the sim backend counts work but does not time kernels), so ' \
               'there is no speedup distribution; run on <code>--backend cann</code> to measure it.</p>'
    bins: dict[float, int] = {}
    for x in xs:
        b = math.floor(math.log2(x) * 2) / 2
        bins[b] = bins.get(b, 0) + 1
    lo, hi = min(bins), max(bins)
    keys = [lo + i / 2 for i in range(int((hi - lo) * 2) + 1)]
    peak, bw, h, top = max(bins.values()), 40, 160, 20
    body = []
    for i, b in enumerate(keys):
        n = bins.get(b, 0)
        x, bh = 30 + i * (bw + 6), h * n / peak
        fill = COLORS["correct"] if b >= 0 else COLORS["bar"]
        body.append(f'<rect x="{x}" y="{top + h - bh:.1f}" width="{bw}" height="{bh:.1f}" fill="{fill}"/>'
                    f'<text x="{x + bw / 2}" y="{top + h - bh - 4:.1f}" text-anchor="middle">{n}</text>'
                    f'<text x="{x + bw / 2}" y="{top + h + 16}" text-anchor="middle">{2 ** b:.2g}x</text>')
    return _svg(60 + len(keys) * (bw + 6), top + h + 26, body, f"speedup over eager ({kind}, log scale bins)")


def fast_p_curve(records: list[TaskRecord]) -> str:
    """fast_p for p from 0 to 3: the share of all runs that are correct and more than p times as fast as eager."""
    xs, kind = _speedups(records)
    if not xs or not records:
        return ""
    left, top, w, h, pmax = 50, 14, 420, 160, 3.0
    def at(p: float) -> float:
        return sum(x > p for x in xs) / len(records)
    pts = [(i * pmax / 120, at(i * pmax / 120)) for i in range(121)]
    line = " ".join(f"{left + p / pmax * w:.1f},{top + h - v * h:.1f}" for p, v in pts)
    body = [f'<line x1="{left}" y1="{top + h}" x2="{left + w}" y2="{top + h}" stroke="{COLORS["axis"]}"/>',
            f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + h}" stroke="{COLORS["axis"]}"/>',
            f'<polyline points="{line}" fill="none" stroke="{COLORS["bar"]}" stroke-width="2"/>',
            f'<text x="{left - 6}" y="{top + 10}" text-anchor="end">100%</text>',
            f'<text x="{left - 6}" y="{top + h}" text-anchor="end">0%</text>']
    for p in (0.8, 1.0, 1.5):
        x, y = left + p / pmax * w, top + h - at(p) * h
        body.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4" fill="{COLORS["correct"]}"/>'
                    f'<text x="{x + 6:.1f}" y="{y - 6:.1f}">fast_{p:g} {rate(at(p))}</text>'
                    f'<text x="{x:.1f}" y="{top + h + 16}" text-anchor="middle">{p:g}x</text>')
    return _svg(left + w + 90, top + h + 26, body, f"fast_p over p ({kind} speed-ups)")


def _group_table(title: str, groups: dict, ks: list[str]) -> str:
    head = "".join(f"<th>{escape(k)}</th>" for k in ks)
    rows = "".join(
        f'<tr><td class="l">{escape(name)}</td><td>{g.tasks}</td><td>{g.runs}</td><td>{rate(g.compile_rate)}</td>'
        f'<td>{rate(g.correct_rate)}</td><td>{rate(g.faster_rate)}</td><td>{rate(g.est_faster_rate)}</td>'
        + "".join(f"<td>{rate(g.pass_at_k.get(k))}</td>" for k in ks)
        + f"<td>{g.prompt_tokens + g.completion_tokens}</td><td>${g.cost_usd:.4f}</td></tr>"
        for name, g in groups.items())
    return (f'<h2>{escape(title)}</h2><table><tr><th class="l">group</th><th>tasks</th><th>runs</th><th>compile</th>'
            f"<th>correct</th><th>faster than eager</th><th>est. faster than eager</th>{head}<th>tokens</th>"
            f"<th>cost</th></tr>{rows}</table>")


def _task_table(records: list[TaskRecord]) -> str:
    rows = "".join(
        f'<tr><td class="l">{escape(r.task)}</td><td>{r.attempt}</td><td class="l">{escape(r.category or "")}</td>'
        f'<td class="l {"passed" if r.correct else "bad"}">{escape(r.status)}</td><td>{"yes" if r.compiled else "no"}</td>'
        f"<td>{r.repairs}</td><td>{r.seconds:.1f}</td>"
        f'<td class="l">{escape(r.reason.splitlines()[0][:160] if r.reason else "")}</td></tr>'
        for r in sorted(records, key=lambda r: (r.category or "", r.task, r.attempt)))
    return ('<h2>Tasks</h2><table><tr><th class="l">task</th><th>try</th><th class="l">category</th>'
            '<th class="l">status</th><th>compiled</th><th>repairs</th><th>seconds</th><th class="l">reason</th></tr>'
            f"{rows}</table>")


def _fast_p_line(s: Summary) -> str:
    if not s.overall.fast_p:
        return ""
    values = ", ".join(f"{escape(k)} <b>{rate(v)}</b>" for k, v in s.overall.fast_p.items())
    before = ", ".join(f"{escape(k)} <b>{rate(v)}</b>" for k, v in s.overall.fast_p_before.items())
    return f'<p>fast_p ({escape(s.overall.fast_p_source)} speed-ups; correct and more than p times as fast as eager, ' \
           f'over all runs): {values}</p>' + (f"<p>before the performance phase: {before}</p>" if before else "")


def render(s: Summary, records: list[TaskRecord]) -> str:
    ks = list(s.overall.pass_at_k)
    notes = "".join(f'<p class="note">{escape(n)}</p>' for n in s.notes)
    return ("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>kernelwright bench: "
            f"{escape(s.suite)}</title><style>{CSS}</style></head><body>"
            f"<h1>kernelwright bench: {escape(s.suite)}</h1>"
            f"<p>model <b>{escape(s.model)}</b>, backend <b>{escape(s.backend)}</b>, tolerance "
            f"<b>{escape(s.tolerance)}</b>, {s.attempts} attempt(s) per task; {s.finished_tasks} of {s.total_tasks} "
            f"task(s) finished.</p>{notes}"
            + _group_table("Overall", {"all": s.overall}, ks) + _fast_p_line(s)
            + "<h2>Compile and correct rate per category</h2>" + category_bars(s)
            + "<h2>Pass rate by repair round</h2>" + round_bars(s)
            + "<h2>Speedup over eager</h2>" + speedup_histogram(records) + fast_p_curve(records)
            + _group_table("Per category", s.by_category, ks) + _group_table("Per level", s.by_level, ks)
            + _task_table(records) + "</body></html>\n")
