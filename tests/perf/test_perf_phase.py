"""The performance phase: tiling knobs read from a DSL program and turned into programs that still
parse; a greedy search that keeps only candidates the judge passed and that are faster; the optimiser
step through the ChatModel seam (scripted replies); and the phase in the agent on the emulation."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from kernelwright.agent import dslkit
from kernelwright.agent.config import load_config
from kernelwright.agent.deps import Deps
from kernelwright.agent.models import ScriptedModel
from kernelwright.agent.perf.optimiser import optimise
from kernelwright.agent.perf.search import Candidate, Search, knob_search
from kernelwright.agent.perf.speed import Speed, cost_report
from kernelwright.tools.perf.knobs import turns

HERE = Path(__file__).resolve().parents[1] / "agent"
GOOD = (HERE / "transcripts/replies/abs_scale_good.md").read_text()
PROGRAM = GOOD.split("```python\n")[1].split("```")[0]
LAYER_NORM = (Path(__file__).resolve().parents[2] / "prompts/examples/norm/layer_norm.dsl.py").read_text()


def test_knobs_of_a_program_and_every_variant_parses():
    single = PROGRAM.replace("stages=2", "stages=1")
    found = {t.label: t for t in turns(single)}
    assert list(found) == ["double_buffer on", "tile:tile x2", "blocks x2", "tile:tile /2", "blocks /2"]
    assert "A.tiles(lo, hi, t.tile, stages=2)" in found["double_buffer on"].source
    assert "    nb = max(1, min(hw.vector_cores, nb * 2))  # perf knob\n    return A.Tiling(" in found["blocks x2"].source
    for t in found.values():
        dslkit.parse(t.source)            # raises DslError on a variant the DSL does not accept
    # a double-buffered program has no double-buffering knob; a row loop without copies of its own gets none
    assert "double_buffer on" not in {t.label for t in turns(PROGRAM)}
    # layer norm's rounds over all blocks (session 8) have row loops that copy statistics in: a knob of their own
    assert [t.label for t in turns(LAYER_NORM)] == ["double_buffer on", "tile:chunk x2", "blocks x2", "tile:chunk /2",
                                                     "blocks /2"]
    assert turns("def broken(:\n") == [] and turns("import adsl as A\n") == []


def _fake_judge(times: dict[str, float | None], calls: list[str]):
    """Judges a variant by the knob it turned: a time passes, None fails (the referee's mismatch)."""
    def judge(label: str, source: str) -> Candidate:
        calls.append(label)
        us = times.get(label)
        if us is None:
            return Candidate(label=label, source=source, status="failed", why="referee: 1 mismatched")
        return Candidate(label=label, source=source, status="passed", speed=Speed(kind="estimate", kernel_us=us))
    return judge


def _search(us: float = 20.0) -> Search:
    start = Candidate(label="original", source=PROGRAM.replace("stages=2", "stages=1"), status="passed",
                      speed=Speed(kind="estimate", kernel_us=us))
    return Search(best=start, start=start)


def test_search_keeps_only_faster_passing_candidates_and_never_a_failing_one():
    calls: list[str] = []
    # double buffering fails verification (however fast it would be); a bigger tile is faster; more blocks
    # is within the minimum gain; the reverse of the kept move is never tried
    times = {"double_buffer on": None, "tile:tile x2": 18.0, "blocks x2": 17.9, "blocks /2": 25.0}
    s = _search()
    why = knob_search(s, _fake_judge(times, calls), max_candidates=10, max_seconds=60, min_gain=0.02)
    assert s.best.label == "tile:tile x2" and s.best.speed.kernel_us == 18.0
    assert "tile = tile * 2  # perf knob" in s.best.source
    assert calls[:2] == ["double_buffer on", "tile:tile x2"] and "tile:tile /2" not in calls
    assert calls.count("tile:tile x2") == 2             # a kept move may be made again (the tile doubles twice)
    assert [c.status for c in s.tried][:1] == ["failed"] and why == "no knob left to turn"


def test_search_stops_at_its_candidate_cap():
    calls: list[str] = []
    s = _search()
    why = knob_search(s, _fake_judge({}, calls), max_candidates=2, max_seconds=60, min_gain=0.0)
    assert len(calls) == 2 and s.best is s.start and "perf.max_candidates=2" in why


def _deps(model) -> Deps:
    return Deps(config=load_config(env={}), models={"dsl_writer": model}, writer=None, toolchain=None, retriever=None)


def test_optimiser_proposal_is_judged_like_any_candidate():
    faster = PROGRAM.replace("A.Abs(v, v, n)\n        A.Muls(v, v, 2.0, n)", "A.Abs(v, v, n)\n        A.Adds(v, v, 0.0, n)")
    model = ScriptedModel([f"Fewer vector passes.\n```python\n{faster}```", "no code here",
                           f"```python\n{faster}```"])
    calls: list[str] = []
    s = _search()
    s.best.speed.report = {"device_us": 1.0, "launch_us": 19.0, "bound_us": 0.5, "bound": "GM", "pipes": {"MTE2": 0.7},
                           "gm_bytes": 64000, "min_bytes": 32000, "blocks": 4, "cores": 4}
    s.best.speed.bottleneck = "MTE2"
    s.best.source = PROGRAM
    usage, notes = optimise(s, _fake_judge({"optimiser 1": 15.0}, calls), _deps(model), rounds=3, max_seconds=60,
                            min_gain=0.02)
    assert calls == ["optimiser 1"] and s.best.label == "optimiser 1" and usage["calls"] == 3
    assert [node for node, _ in model.calls] == ["optimiser"] * 3
    assert [(c.label, c.status) for c in s.tried] == [("optimiser 1", "passed"), ("optimiser 2", "rejected"),
                                                      ("optimiser 3", "rejected")]
    prompt = model.calls[0][1][-1]["content"]
    assert "bottleneck MTE2" in prompt and "GM bytes moved 64000 vs the minimum 32000" in prompt and "2.00x" in prompt
    assert PROGRAM.strip() in prompt and "The DSL reference:" in model.calls[0][1][0]["content"]
    # no model: no step, nothing asked
    assert optimise(_search(), _fake_judge({}, calls), _deps(None), rounds=3, max_seconds=60, min_gain=0.0) == ({}, [])


def test_cost_report_names_bottleneck_and_bytes_against_the_minimum():
    s = Speed(kind="estimate", kernel_us=20.5, eager_us=19.5, speedup=19.5 / 20.5, bottleneck="GM",
              report={"device_us": 1.5, "launch_us": 19.0, "bound_us": 1.2, "bound": "GM", "pipes": {"MTE2": 0.8, "V": 0.1},
                      "gm_bytes": 3000, "min_bytes": 1000, "blocks": 48, "cores": 48})
    text = cost_report(s)
    assert "0.95x" in text and "bottleneck GM; pipe busy shares MTE2 80%, V 10%" in text and "once: 3.00x)" in text
    assert "the floor of this kernel's own work 1.200 us (GM bound" in text and "L2" not in text
    # with the SoC: what the estimate prices there (the L2 a two-pass kernel can be ordered for), and an unjudged path
    s.unjudged = ["SyncAll"]
    text = cost_report(s, "Ascend910B4")
    assert "an L2 of 96 MiB" in text and "1.6 TB/s" in text and "SyncAll: that path is estimated, not verified" in text


def test_phase_in_the_agent_keeps_a_passing_kernel(sim, tmp_path):
    """The builtin writer's abs_scale, then one knob candidate on the emulation: whatever the candidate
    does, the run ends passed with the phase's record, and a kept candidate has its own passing verdict."""
    from kernelwright.agent.api import generate
    cfg = load_config(env={}, overrides={"paths.runs": str(tmp_path / "runs"), "retriever.enabled": False,
                                         "perf.enabled": True, "perf.max_candidates": 1})
    result = generate(HERE / "tasks" / "abs_scale.py", config=cfg, toolchain=sim)
    assert result.status == "passed", result.reason
    assert result.path[-2:] == ["perf", "finish"]
    perf = json.loads((result.artifacts / "run.json").read_text())["perf"]
    assert perf["before"]["kind"] == "estimate" and perf["before"]["kernel_us"] > 0
    assert len(perf["candidates"]) == 1 and perf["candidates"][0]["status"] in ("passed", "failed", "rejected")
    assert perf["after"]["kernel_us"] <= perf["before"]["kernel_us"]
    verdict = json.loads((result.artifacts / "run.json").read_text())["verdict"]
    assert verdict["status"] == "pass"
    if perf["kept"] != "original":
        assert re.search(r"perf knob", (result.artifacts / "kernel/kernel.dsl.py").read_text())


def test_bench_reports_fast_p_before_and_after_the_phase(tmp_path):
    import csv

    from kernelwright.evals.bench.records import TaskRecord
    from kernelwright.evals.bench.reports import text_summary, write_reports
    from kernelwright.evals.bench.worker import before_phase
    art = tmp_path / "run"
    art.mkdir()
    (art / "run.json").write_text(json.dumps({"perf": {"before": {"kind": "estimate", "speedup": 0.9}}}))
    assert before_phase(art) == {"est_speedup_before": 0.9} and before_phase(tmp_path) == {}
    recs = [TaskRecord(task=n, status="passed", correct=True, est_speedup=a, est_speedup_before=b)
            for n, a, b in (("relu", 1.05, 0.95), ("gelu", 0.9, 0.7), ("tanh", 2.0, 2.0))]
    recs.append(TaskRecord(task="exp", status="failed"))
    s = write_reports(tmp_path, recs, suite="s", model="m", backend="sim", tolerance="default", attempts=1,
                      total_tasks=4)
    assert s.overall.fast_p == {"fast_0.8": 0.75, "fast_1": 0.5, "fast_1.5": 0.25}
    assert s.overall.fast_p_before == {"fast_0.8": 0.5, "fast_1": 0.25, "fast_1.5": 0.25}
    text = text_summary(s)
    assert "before the performance phase: fast_0.8 50.0%, fast_1 25.0%, fast_1.5 25.0%; geomean speed-up" in text
    assert "before the performance phase: fast_0.8 <b>50.0%</b>" in (tmp_path / "report.html").read_text()
    row = next(csv.DictReader((tmp_path / "summary.csv").open()))
    assert (row["fast_1"], row["fast_1_before_perf"]) == ("0.5", "0.25")


def _verdict(device_us: float, bound_us: float, kernel_us: float):
    from kernelwright.tools.referee.verdict import StageReport, Verdict
    entry = {"kernel_us": kernel_us, "device_us": device_us, "launch_us": kernel_us - device_us, "bound_us": bound_us,
             "bound": "GM", "eager_us": 19.5, "speedup": 19.5 / kernel_us, "bottleneck": "MTE2", "pipes": {"MTE2": 0.9}}
    measure = StageReport(name="measure", status="pass", metrics={
        "speed": {"kind": "estimate", "soc": "Ascend910B2", "per_soc": {"Ascend910B2": entry}}})
    return Verdict(task="t", op_type="T", project="p", backend="sim", tolerance="default", status="pass",
                   summary="4 run(s) passed", stages=[measure])


def _phase_state(tmp_path, device_us: float, bound_us: float):
    from kernelwright.agent.state import VerdictBrief
    art = tmp_path / "art"
    (art / "verdicts").mkdir(parents=True)
    (art / "verdicts/v1.json").write_text(_verdict(device_us, bound_us, 19.0 + device_us).model_dump_json())
    brief = VerdictBrief(version=1, status="pass", stage="pass", summary="ok", file="verdicts/v1.json")
    return {"artifacts": str(art), "dsl": PROGRAM.replace("stages=2", "stages=1"), "dsl_version": 1,
            "project_version": 1, "verdict": brief, "verdicts": [brief]}


def test_phase_skips_the_knobs_at_the_socs_floor_and_keeps_a_faster_candidate(tmp_path):
    from kernelwright.agent.perf.node import run_phase
    from kernelwright.agent.perf.speed import speed_of
    from kernelwright.tools.project import KernelProject
    deps = _deps(None)
    calls: list[str] = []
    at_floor = run_phase(_phase_state(tmp_path / "a", 1.3, 1.3), deps, judge=_fake_judge({}, calls))
    assert calls == [] and "floor for its work" in at_floor["perf"]["stopped"] and "dsl" not in at_floor

    def judge(label, source):
        calls.append(label)
        if label != "double_buffer on":
            return Candidate(label=label, source=source, status="failed", why="referee: mismatch")
        return Candidate(label=label, source=source, status="passed", speed=speed_of(_verdict(1.0, 0.5, 20.0)),
                         verdict=_verdict(1.0, 0.5, 20.0), project=KernelProject(name="T", kind="kernel_launch"))
    up = run_phase(_phase_state(tmp_path / "b", 3.0, 1.0), deps, judge=judge)
    assert calls[0] == "double_buffer on" and len(calls) == deps.config.perf.max_candidates
    assert up["perf"]["kept"] == "double_buffer on" and up["perf"]["before"]["kernel_us"] == 22.0
    assert up["perf"]["after"]["kernel_us"] == 20.0 and "stages=2" in up["dsl"] and up["dsl_version"] == 2
    assert up["verdict"].file == "verdicts/v2.json" and up["verdict"].status == "pass"
    assert (tmp_path / "b/art/verdicts/v2.json").is_file() and (tmp_path / "b/art/dsl/v2.dsl.py").is_file()


def test_optimiser_proposals_from_a_recorded_transcript_never_trade_correctness(sim, tmp_path):
    """The model path through the whole graph: the optimiser reads the cost report and proposes two
    programs; the wrong one is dropped by the DSL check, the other is judged by the referee; the run ends
    passed with a kernel whose verdict passes, whichever is kept."""
    from kernelwright.agent.api import generate
    from kernelwright.agent.models import ReplayModel
    cfg = load_config(env={}, overrides={"paths.runs": str(tmp_path / "runs"), "retriever.enabled": False,
                                         "perf.enabled": True, "perf.max_candidates": 0, "perf.optimiser_rounds": 2})
    model = ReplayModel(Path(__file__).parent / "transcripts" / "optimiser.jsonl")
    result = generate(HERE / "tasks" / "abs_scale.py", model=model, config=cfg, toolchain=sim)
    assert result.status == "passed", result.reason
    assert model.remaining == 0
    summary = json.loads((result.artifacts / "run.json").read_text())
    perf = summary["perf"]
    assert [(c["label"], c["status"]) for c in perf["candidates"]] == [("optimiser 1", "rejected"),
                                                                       ("optimiser 2", "passed")]
    assert "differ from the reference" in perf["candidates"][0]["why"]
    fewer = perf["candidates"][1]["kernel_us"]
    assert perf["kept"] == ("optimiser 2" if fewer < perf["before"]["kernel_us"] * 0.995 else "original")
    assert summary["verdict"]["status"] == "pass" and summary["usage"]["calls"] == 4
    assert "A.Muls(v, v, 3.0, n)" not in (result.artifacts / "kernel/kernel.dsl.py").read_text()


def test_phase_line_for_the_cli():
    from kernelwright.agent.perf.speed import phase_line
    rec = {"before": {"kind": "estimate", "kernel_us": 22.0, "speedup": 0.9}, "after": {"kind": "estimate",
           "kernel_us": 20.0, "speedup": 0.99}, "kept": "tile:tile x2",
           "candidates": [{"status": "passed"}, {"status": "failed"}], "stopped": "no knob left to turn"}
    assert phase_line(rec) == ("performance phase (estimate): 22.000 us (0.90x eager) -> 20.000 us (0.99x eager), "
                               "kept tile:tile x2; 2 candidate(s), 1 passed; no knob left to turn")


def test_a_knob_the_tiling_clamps_away_is_not_judged():
    from kernelwright.tools.perf.knobs import tiling_values
    shapes = [[16, 4096]]              # 65536 elements: 32 blocks of 2048, a tile of 512 (4 per block)
    base = tiling_values(PROGRAM, shapes)
    assert base == (32, (("tile", 512), ("total", 65536)))
    found = {t.label: t for t in turns(PROGRAM)}
    assert tiling_values(found["blocks x2"].source, shapes) == (48, (("tile", 512), ("total", 65536)))
    assert tiling_values(found["blocks x2"].source, [[4], [8]]) is None     # not one shape per input
    calls: list[str] = []
    s = _search()
    s.best.source = s.start.source = PROGRAM
    knob_search(s, _fake_judge({}, calls), max_candidates=10, max_seconds=60, min_gain=0.0,
                tiling=lambda src: (1, ()) if "nb * 2" in src else (0, ()))   # only blocks x2 changes the tiling
    assert calls == ["blocks x2"]
    assert {c.label for c in s.tried if c.status == "rejected"} == {"tile:tile x2", "tile:tile /2", "blocks /2"}


def test_the_phase_reads_the_estimate_at_the_task_shapes_and_its_shapes():
    """A verdict estimated at the task's own shapes: the phase's speed is that one, its shapes are the task's
    (a tiling knob is judged where it is estimated), and the cost report and phase line say so."""
    from kernelwright.agent.perf.speed import phase_line, speed_of
    from kernelwright.tools.referee.verdict import CaseRun
    v = _verdict(500.0, 480.0, 519.0)
    v.stages[0].metrics["speed"]["at"] = "task"
    v.runs = [CaseRun(case="default", trial=0, seed=0, status="pass", original_shapes=[[4096, 8192]],
                      run_shapes=[[16, 64]])]
    s = speed_of(v)
    assert s.at == "task" and s.shapes == [[4096, 8192]] and s.kernel_us == 519.0
    assert "at the task's own shapes" in cost_report(s)
    del v.stages[0].metrics["speed"]["at"]                      # an older verdict: at the shapes that ran
    assert speed_of(v).shapes == [[16, 64]] and speed_of(v).at == "shrunk"
    line = phase_line({"before": {"kernel_us": 519.0, "speedup": 1.2, "at": "task"}, "after": None, "candidates": []})
    assert "(estimate at the task's shapes)" in line


def test_a_candidate_estimated_only_at_shrunk_shapes_does_not_beat_one_at_the_task_shapes():
    """adam's doubled tile passed at the shrunk shapes and overflowed UB at the task's: its 20 us at the shrunk
    shapes must not replace the original's 5 ms at the task's shapes."""
    from kernelwright.agent.perf.search import Candidate, Search
    best = Candidate(label="original", source="a", status="passed",
                     speed=Speed(kind="estimate", kernel_us=5000.0, at="task"))
    s = Search(best=best, start=best)
    doubled = Candidate(label="tile x2", source="b", status="passed",
                        speed=Speed(kind="estimate", kernel_us=20.0, at="shrunk", why_not_task="ub.capacity at the task shapes"))
    assert not s.consider(doubled, 0.005)
    # said so, for the optimiser's list of variants tried (model-in-the-loop s8b: "passed, 22.329 us" read as 500x)
    assert "estimated at the shrunk shapes only" in doubled.why and doubled.brief()["at"] == "shrunk"
    assert s.consider(Candidate(label="blocks x2", source="c", status="passed",
                                speed=Speed(kind="estimate", kernel_us=4000.0, at="task")), 0.005)
