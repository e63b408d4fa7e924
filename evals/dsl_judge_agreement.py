"""Whether the DSL check and the kernel's verdict agree (issue 12's "one judge").

Every example program under prompts/examples, on every task and dtype it lists, is judged under every
tolerance preset twice: the program on the interpreter (`kernelwright dsl check`) and its lowered
kernel on the CPU emulation (`verify`), both with one trial and no recheck. A row agrees when the two
verdicts have the same status and every case has the same status both ways.

The presets change only the comparison, so each kernel run, interpreter run and reference run is made
once and reused for every preset. Runs in a temporary KERNELWRIGHT_HOME.

    python -m kernelwright.evals.dsl_judge_agreement [--out agreement.json] [EXAMPLE ...]
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


class Memo:
    """Answers a repeated call from memory: a toolchain's run(build, case) keyed by the bound case's
    values, a reference worker's run/describe keyed by case, seed and shrink mapping."""

    def __init__(self, inner: Any):
        self.inner, self.memo, self.calls = inner, {}, 0

    def __getattr__(self, item: str) -> Any:
        return getattr(self.inner, item)

    def _once(self, key: Any, call: Any) -> Any:
        if key not in self.memo:
            self.calls += 1
            self.memo[key] = call()
        return self.memo[key]

    def build(self, project: Any, *, soc: str | None = None) -> Any:
        return self._once(("build", project.name, json.dumps(project.files, sort_keys=True), soc),
                          lambda: self.inner.build(project, soc=soc))

    def run(self, *args: Any) -> Any:
        if len(args) == 2:                                  # a toolchain's run(build, case)
            build, case = args
            h = hashlib.sha256(json.dumps([build.project, case.label, repr(case.attrs),
                                           sorted((k, str(v)) for k, v in case.outputs.items())]).encode())
            for name in sorted(case.inputs):
                h.update(name.encode() + case.inputs[name].tobytes() + str(case.inputs[name].dtype).encode())
            return self._once(h.hexdigest(), lambda: self.inner.run(build, case))
        case, seed, mapping = args                          # a reference worker's run(case, seed, mapping)
        return self._once(("ref", case.id, case.dtype, seed, tuple(sorted(mapping.items()))),
                          lambda: self.inner.run(case, seed, mapping))

    def describe(self, case: Any, mapping: dict[int, int] | None = None) -> Any:
        return self._once(("describe", case.id, case.dtype, tuple(sorted((mapping or {}).items()))),
                          lambda: self.inner.describe(case, mapping))


def _rows(example: Any, spec: Any, sim: Any, presets: list[str]) -> list[dict[str, Any]]:
    from kernelwright.tools.dsl.check import check, expand_dtypes
    from kernelwright.tools.dsl.lower import lower
    from kernelwright.tools.dsl.parse_program import parse_file
    from kernelwright.tools.dsl.toolchain import InterpToolchain
    from kernelwright.tools.referee import verify
    from kernelwright.tools.tasks.load import load_task
    from kernelwright.tools.tasks.reference import ReferenceWorker

    program = parse_file(example.program_path())
    task = load_task(example.task_path(spec))
    rows = []
    with ReferenceWorker(task) as raw:
        expand_dtypes(task, raw, spec.dtypes)
        worker, kernel, interp = Memo(raw), Memo(sim), Memo(InterpToolchain())
        project = lower(program, task.op_type)
        for preset in presets:
            start = time.monotonic()
            report = check(program, task, tolerance=preset, worker=worker, toolchain=interp)
            v = verify(task, project, kernel, tolerance=preset, worker=worker, trials=1, recheck=False, api_lint=False)
            dsl_cases = {c.case: c.status for c in report.cases}
            kernel_cases = {r.case: r.status for r in v.runs} | {c: "skipped" for c in v.skipped_cases}
            rows.append({"example": example.name, "task": spec.path, "tolerance": preset, "dsl": report.verdict.status, "kernel": v.status,
                         "cases": len(kernel_cases), "agree": (report.ok == v.ok and dsl_cases == kernel_cases),
                         "differing_cases": sorted(c for c in set(dsl_cases) | set(kernel_cases)
                                                   if dsl_cases.get(c) != kernel_cases.get(c)),
                         "seconds": round(time.monotonic() - start, 2)})
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, help="write the rows as JSON here")
    ap.add_argument("names", nargs="*", help="only these examples")
    args = ap.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="kw-judge-") as home:
        os.environ["KERNELWRIGHT_HOME"] = home  # read at call time by the cache
        from kernelwright.tools.dsl.examples import examples
        from kernelwright.tools.referee.tolerance import PRESETS
        from kernelwright.tools.sim.toolchain import SimToolchain

        sim, rows = SimToolchain(), []
        for example in examples():
            if args.names and example.name not in args.names:
                continue
            for spec in example.tasks:
                found = _rows(example, spec, sim, list(PRESETS))
                rows += found
                bad = [r["tolerance"] for r in found if not r["agree"]]
                print(f"{example.name} {spec.path}: " + ", ".join(f"{r['tolerance']} {r['dsl']}/{r['kernel']}"
                                                                 for r in found) + (f"  DISAGREE: {bad}" if bad else ""),
                      flush=True)
    agree = sum(r["agree"] for r in rows)
    print(f"{agree}/{len(rows)} (example, task, preset) verdicts agree; "
          f"{sum(r['dsl'] != 'pass' for r in rows)} of them not a pass")
    if args.out:
        args.out.write_text(json.dumps(rows, indent=1))
    return 0 if agree == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
