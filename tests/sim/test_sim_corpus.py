"""The kernel corpus on the CPU emulation: every good kernel builds, runs `ok` on each of its
cases and matches its NumPy reference; every broken kernel fails at the expected stage with
the expected category or rule, at the expected file:line, with the expected message."""
from __future__ import annotations

import pytest

from kernelwright.tools.sim import corpus

ENTRIES = corpus.load()
GOOD = [e for e in ENTRIES if e.kind == "good"]
BAD = [e for e in ENTRIES if e.kind == "bad"]


def _render(diags) -> str:
    return "\n".join(d.render() for d in diags[:8])


@pytest.mark.parametrize("entry", GOOD, ids=lambda e: e.name)
def test_good_kernel(sim, entry):
    build = sim.build(entry.project())
    assert build.ok, f"{entry.name} did not build:\n{_render(build.diagnostics)}"
    cases = entry.cases()
    assert len(cases) >= 2, "a good kernel runs on at least two shapes"
    for i, case in enumerate(cases):
        run = sim.run(build, case)
        assert run.status == "ok", f"case {i}: {run.status} {run.detail}\n{_render(run.diagnostics)}"
        assert not run.errors(), _render(run.diagnostics)
        problems = entry.mismatches(case, run.outputs)
        assert not problems, f"case {i}: " + "\n".join(problems)


@pytest.mark.parametrize("entry", BAD, ids=lambda e: e.name)
def test_bad_kernel(sim, entry):
    expect = entry.expect
    build = sim.build(entry.project())
    run = None
    if expect.stage != "build":
        assert build.ok, f"{entry.name} should build and fail later:\n{_render(build.diagnostics)}"
        cases = entry.cases()
        assert cases, "a kernel that fails at run time needs a case"
        run = sim.run(build, cases[0])
    problems = entry.violations(build, run)
    assert not problems, "\n".join(problems)


def test_corpus_size():
    launch = [e for e in GOOD if e.project().kind == "kernel_launch"]
    msopgen = [e for e in GOOD if e.project().kind == "msopgen"]
    assert len(GOOD) >= 30 and len(BAD) >= 20
    assert len(msopgen) >= 10 and launch


def test_bad_specs_point_into_the_project():
    for e in BAD:
        x = e.expect
        assert x.file in e.project().files, f"{e.name}: EXPECT file {x.file} is not in the project"
        assert 0 < x.line <= len(e.project().files[x.file].splitlines()), f"{e.name}: EXPECT line {x.line} is past the end"
