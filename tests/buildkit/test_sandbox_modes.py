"""The sandbox's own behaviour: what a step's environment holds, a degraded machine said aloud (doctor
row and verdict finding), leftovers of an uncontained step killed, and infrastructure failures
(a hang) never cached."""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from kernelwright.tools.buildkit import containment, sandbox
from kernelwright.tools.buildkit.sandbox import View

sys.path.insert(0, str(Path(__file__).resolve().parent))
import hostile_kernels as hk  # noqa: E402

TASKS = Path(__file__).resolve().parents[1] / "referee" / "fixtures" / "tasks"


@pytest.fixture
def degraded(monkeypatch):
    monkeypatch.setenv(containment.ENV_SWITCH, "off")
    containment.status.cache_clear()
    yield
    monkeypatch.delenv(containment.ENV_SWITCH)
    containment.status.cache_clear()


def test_a_steps_environment_holds_only_what_it_names(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-x")
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    env = sandbox.environment(View(python=True, env=(("EXTRA", "1"),)))
    assert "OPENAI_API_KEY" not in env and env["OMP_NUM_THREADS"] == "3" and env["EXTRA"] == "1"
    assert set(sandbox.environment(View())) == {"PATH", "HOME", "TMPDIR", "LANG", "LC_ALL"}


def test_a_degraded_machine_is_said_in_doctor_and_in_every_verdict(degraded, sim):
    from kernelwright.agent.doctor_checks import sandbox_state
    from kernelwright.tools.project import KernelProject
    from kernelwright.tools.referee import verify
    from kernelwright.tools.tasks import load_task

    st = sandbox.status()
    assert not st.contained and "KERNELWRIGHT_SANDBOX=off" in st.detail
    row = sandbox_state()
    assert row["status"] == "missing" and "not contained: filesystem view, network" in row["enables"]
    broken = KernelProject(name="k", kind="kernel_launch", files={"k.cpp": "this is not C++"})
    v = verify(load_task(TASKS / "add_scale.py"), broken, sim, api_lint=False)
    assert any(f.startswith("sandbox degraded (turned off by") for f in v.stage("run").findings)


def test_an_uncontained_steps_leftovers_are_killed_with_it(degraded, tmp_path):
    marker = f"3{os.getpid()}.5"
    r = sandbox.run(["sh", "-c", f"sleep {marker} & echo started"], cwd=tmp_path, view=View(writable=(str(tmp_path),)))
    assert r.stdout.strip() == "started"
    time.sleep(0.3)
    alive = [d for d in Path("/proc").iterdir() if d.name.isdigit() and _cmdline(d) == f"sleep\0{marker}\0"]
    assert alive == []


def _cmdline(d: Path) -> str:
    try:
        return (d / "cmdline").read_text()
    except OSError:
        return ""


def test_a_host_code_hang_is_not_cached(sim, tmp_path, monkeypatch):
    from kernelwright.tools.project import KernelProject
    from kernelwright.tools.sim import build

    monkeypatch.setattr(build, "DESCRIBE_LIMITS", sandbox.Limits(wall_s=3, cpu_s=30))
    hk.write_leaky_msopgen(tmp_path / "hang", "/nonexistent/never")
    host = tmp_path / "hang" / "op_host" / "leak.cpp"
    host.write_text(host.read_text().replace("struct Steal {\n    Steal() {", "struct Steal {\n    Steal() {\n"
                                             "        for (;;) sleep(1000);").replace("#include <cstdlib>",
                                                                                      "#include <cstdlib>\n#include <unistd.h>"))
    project = KernelProject.from_path(tmp_path / "hang")
    for _ in range(2):   # the second build runs the host code again: nothing was cached
        b = sim.build(project)
        assert b.status == "compile_error" and b.cache_hits == 0
        assert any("did not finish registering" in d.message and "not cached" in d.message for d in b.diagnostics)
