"""The real backend's part of issue 13: what CANN's build steps and the NPU worker inherit (the toolkit's
variables and search paths, never the caller's credentials; KERNELWRIGHT_CANN_ENV passes more by name or
prefix), the verdict's note that its steps are not sandboxed, and no caching of a build step that timed out."""
from __future__ import annotations

from pathlib import Path

import cann_fakes as fk

from kernelwright.tools.buildkit import sandbox
from kernelwright.tools.cann import steps
from kernelwright.tools.cann.client import NpuWorker
from kernelwright.tools.cann.detect import detect_cann
from kernelwright.tools.cann.env import cann_env, opp_env
from kernelwright.tools.cann.syntax import CannSyntaxToolchain
from kernelwright.tools.cann.toolchain import CannToolchain
from kernelwright.tools.project import KernelProject
from kernelwright.tools.referee import verify
from kernelwright.tools.tasks import load_task

SECRETS = {"OPENAI_API_KEY": "sk-test-0123", "HF_TOKEN": "hf_test", "AWS_SECRET_ACCESS_KEY": "aws-test",
           "KERNELWRIGHT_MODEL": "openai/gpt-test"}


def test_builds_and_the_worker_get_no_credentials(tmp_path, monkeypatch):
    root = fk.make_fake_cann(tmp_path / "Ascend/ascend-toolkit/latest", "8.1.RC1")
    for k, v in SECRETS.items():
        monkeypatch.setenv(k, v)
    monkeypatch.setenv("ASCEND_SLOG_PRINT_TO_STDOUT", "1")
    monkeypatch.setenv("LD_PRELOAD", "/usr/lib/libgomp.so.1")
    monkeypatch.delenv("KERNELWRIGHT_CANN_ENV", raising=False)
    env = cann_env(detect_cann({"ASCEND_HOME_PATH": str(root)}))
    worker = NpuWorker(0, opp_env(env, tmp_path / "vendor")).env
    for e in (env, worker):
        assert not set(SECRETS) & set(e), sorted(set(SECRETS) & set(e))
        assert not any(v in "".join(e.values()) for v in SECRETS.values())
        assert e["ASCEND_SLOG_PRINT_TO_STDOUT"] == "1" and e["LD_PRELOAD"] == "/usr/lib/libgomp.so.1"
        assert e["KW_FAKE_SET_ENV"] == "sourced"          # what set_env.sh sets is the toolkit's: all kept
    assert worker["ASCEND_RT_VISIBLE_DEVICES"] == "0"


def test_more_names_pass_when_asked(tmp_path, monkeypatch):
    root = fk.make_fake_cann(tmp_path / "Ascend/ascend-toolkit/latest", "8.1.RC1")
    monkeypatch.setenv("SITE_LICENSE_SERVER", "lic:1")
    monkeypatch.setenv("MYTOOL_A", "a")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-0123")
    monkeypatch.setenv("KERNELWRIGHT_CANN_ENV", "SITE_LICENSE_SERVER, MYTOOL_*")
    env = cann_env(detect_cann({"ASCEND_HOME_PATH": str(root)}))
    assert env["SITE_LICENSE_SERVER"] == "lic:1" and env["MYTOOL_A"] == "a" and "OPENAI_API_KEY" not in env


def test_a_cann_verdict_says_its_steps_were_not_sandboxed(cann8, tmp_path):
    fixtures = Path(__file__).resolve().parents[1] / "referee" / "fixtures"
    tc = CannSyntaxToolchain(soc="Ascend910B2", compiler=str(fk.fake_tool(tmp_path / "fakebin" / "fake-cxx")))
    v = verify(load_task(str(fixtures / "tasks" / "add_scale.py")), KernelProject.from_path(fixtures / "add_scale"), tc)
    assert any(f.startswith("CANN steps are not sandboxed") for f in v.stage("run").findings), v.stage("run").findings


def test_a_build_step_that_times_out_is_not_cached(cann8, tmp_path, monkeypatch):
    """A hang under load is no verdict on the kernel (issue 13): the next build tries again."""
    real = fk.fake_tool(tmp_path / "fakebin" / "cmake")
    slow = tmp_path / "slow-cmake"
    slow.write_text(f'#!/bin/bash\n[ "$1" = --build ] && echo build >> {tmp_path}/builds && sleep 30\nexec {real} "$@"\n')
    slow.chmod(0o755)
    monkeypatch.setattr(steps, "BUILD_LIMITS", sandbox.Limits(wall_s=2, cpu_s=None, memory_bytes=None))
    tc = CannToolchain(soc="Ascend910B2", cmake=str(slow))
    project = KernelProject(name="add_scaled", kind="kernel_launch", files={"add_scaled.cpp": fk.ADD_KERNEL})
    first = tc.build(project)
    assert not first.ok and "did not finish within 2 s" in first.diagnostics[-1].message, first.diagnostics
    tc.build(project)
    assert (tmp_path / "builds").read_text().count("build") == 2        # tried again: not cached
