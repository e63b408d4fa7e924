"""Kernels and op_host code that try to reach past their run (issue 13): each act is one that the
unsandboxed emulation allowed. Namespace-dependent cases need bubblewrap to work on this machine and are
skipped (with the doctor's reason) where it cannot."""
from __future__ import annotations

import os
import socket
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from kernelwright.tools.buildkit import containment, sandbox

sys.path.insert(0, str(Path(__file__).resolve().parent))
import hostile_kernels as hk  # noqa: E402

KEY = "sk-test-kernelwright-0123456789"
needs_sandbox = pytest.mark.skipif(not sandbox.status().contained, reason=f"no sandbox here: {sandbox.status().detail}")


@pytest.fixture
def secret(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    return KEY


def built(sim, project):
    b = sim.build(project)
    assert b.ok, [d.render() for d in b.diagnostics]
    return b


def run_ok(sim, b, n=64):
    x, c = hk.case(n)
    r = sim.run(b, c)
    assert r.status == "ok", (r.status, r.detail, [d.render() for d in r.diagnostics])
    np.testing.assert_array_equal(r.outputs["y"], x * 2)
    return r


@needs_sandbox
def test_a_kernel_cannot_write_outside_its_run(sim, tmp_path):
    target = tmp_path / "escaped.txt"
    run_ok(sim, built(sim, hk.launch_project("write_outside", path=target)))
    assert not target.exists()


def test_a_kernel_does_not_see_the_callers_credentials(sim, secret):
    r = run_ok(sim, built(sim, hk.launch_project("read_env", name="env_reader")))
    assert "KEY=(none)" in r.stdout and secret not in r.stdout


@needs_sandbox
def test_a_kernel_cannot_connect_to_the_host(sim):
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    server.settimeout(8)
    got: list[bytes] = []

    def accept() -> None:
        try:
            conn, _ = server.accept()
            got.append(conn.recv(16))
            conn.close()
        except OSError:
            pass
    t = threading.Thread(target=accept)
    t.start()
    try:
        run_ok(sim, built(sim, hk.launch_project("socket", name="caller", port=server.getsockname()[1])))
    finally:
        t.join(10)
        server.close()
    assert got == []


def _processes_with(marker: str) -> list[int]:
    found = []
    for d in Path("/proc").iterdir():
        try:
            if d.name.isdigit() and marker.encode() in (d / "cmdline").read_bytes():
                found.append(int(d.name))
        except OSError:
            continue
    return found


@needs_sandbox
def test_nothing_a_kernel_starts_outlives_its_run(sim, tmp_path):
    marker, late = f"2.{os.getpid()}{time.monotonic_ns() % 10**6}", tmp_path / "late.txt"
    run_ok(sim, built(sim, hk.launch_project("grandchild", name="spawner", marker=marker, path=late)))
    try:
        time.sleep(0.5)
        assert _processes_with(f"sleep {marker}") == []
        time.sleep(3)
        assert not late.exists()
    finally:
        for pid in _processes_with(f"sleep {marker}"):
            os.kill(pid, 9)


@needs_sandbox
def test_op_host_code_at_build_sees_no_credentials_and_writes_nothing(tmp_path, secret, capsys):
    from kernelwright.agent.cli import main

    leak = tmp_path / "leaked.txt"
    hk.write_leaky_msopgen(tmp_path / "leak", str(leak))
    code = main(["build", str(tmp_path / "leak")])
    out = capsys.readouterr()
    assert code == 0, out.out + out.err
    assert not leak.exists() and secret not in out.out + out.err


def test_a_crash_message_carries_no_credentials_or_host_files(sim, secret):
    b = built(sim, hk.launch_project("none", name="crasher", helpers=hk.CRASH_HELPERS))
    r = sim.run(b, hk.case()[1])
    assert r.status == "crash"
    shown = r.detail + r.stdout + "".join(d.render() for d in r.diagnostics)
    assert "KEY=(none)" in shown and secret not in shown
    if sandbox.status().contained:
        assert "root:x:0:0" not in shown


def test_a_raw_store_past_an_outputs_end_is_a_violation(sim):
    b = built(sim, hk.launch_project("overrun", name="overrunner"))
    r = sim.run(b, hk.case(1000)[1])
    assert r.status == "rule_violation", r.detail
    d = next(d for d in r.errors() if d.rule == "gm.raw_overrun")
    assert "'y', which holds 4000 bytes" in d.message and "24 bytes past the end" in d.message


def _overwrite_scenario(sim):
    """A failing kernel (it adds 1 to the right y = x * 2) and a right one with the same signature; a
    hostile run then copies the right executable over the failing one's cached build."""
    right_project = hk.launch_project("none", name="victim")
    source = right_project.files["victim.cpp"].replace("* 2.0f;", "* 2.0f + 1.0f;")
    wrong_project = right_project.model_copy(update={"files": {"victim.cpp": source}})
    wrong, right = built(sim, wrong_project), built(sim, right_project)
    x, c = hk.case()
    assert not np.array_equal(sim.run(wrong, c).outputs["y"], x * 2)
    attack = built(sim, hk.launch_project("overwrite_cache", name="attacker", source=right.artifacts["kernel_exe"],
                                          target=wrong.artifacts["kernel_exe"]))
    run_ok(sim, attack)
    return wrong_project, wrong, x, c


@needs_sandbox
def test_a_run_cannot_overwrite_a_cached_build(sim):
    project, wrong, x, c = _overwrite_scenario(sim)
    for b in (wrong, sim.build(project)):
        r = sim.run(b, c)
        assert r.status == "ok" and not np.array_equal(r.outputs["y"], x * 2)


def test_a_tampered_build_is_refused_and_rebuilt(sim, monkeypatch):
    """Uncontained (the sandbox switched off), the attack reaches the cache: the seal catches it."""
    monkeypatch.setenv(containment.ENV_SWITCH, "off")
    containment.status.cache_clear()
    try:
        project, wrong, x, c = _overwrite_scenario(sim)
    finally:
        monkeypatch.delenv(containment.ENV_SWITCH)
        containment.status.cache_clear()
    r = sim.run(wrong, c)
    assert r.status == "bad_case" and "not the one the builder sealed" in r.detail
    again = sim.build(project)
    assert again.cache_hits == 0
    r = sim.run(again, c)
    assert r.status == "ok" and not np.array_equal(r.outputs["y"], x * 2)
