"""The parent side of NPU runs against a stand-in worker (fake_worker.py): results in the sim's
RunResult shape, faults classified, the worker restarted after a fault and the next case run, hangs
killed, a lost device taken out of a multi-NPU pool, bad cases refused before any device work,
and timing results with statistics."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import cann_fakes as fk  # noqa: E402

from kernelwright.tools.cann import run as cann_run
from kernelwright.tools.cann.pool import DevicePool, NoDevice, visible_devices
from kernelwright.tools.cann.signatures import kernel_signatures
from kernelwright.tools.cann.toolchain import CannToolchain
from kernelwright.tools.timing import ReferenceSpec, TimingConfig
from kernelwright.tools.toolchain import ArgSpec, BuildResult, Case, OutputSpec

FAKE_WORKER = [sys.executable, str(Path(__file__).with_name("fake_worker.py"))]
KERNEL = 'extern "C" __global__ __aicore__ void add(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t n) {}\n'


@pytest.fixture
def setup(tmp_path, monkeypatch):
    root = fk.make_fake_cann(tmp_path / "Ascend/ascend-toolkit/latest", "8.1.RC1")
    fk.fake_env(monkeypatch, root, tmp_path / "tools.log", tmp_path / "home")
    state = tmp_path / "state"
    state.mkdir()
    monkeypatch.setenv("KW_FAKE_STATE", str(state))
    sigs = {s.name: s.model_dump() for s in kernel_signatures({"add.cpp": KERNEL}, ["add.cpp"])}
    (tmp_path / "launchers.json").write_text(__import__("json").dumps(sigs))
    return tmp_path


def build_for(tmp: Path, kind: str) -> BuildResult:
    return BuildResult(toolchain="cann", status="ok", project="add", kernels=["add"],
                       artifacts={"library": str(tmp / f"{kind}.so"), "launchers": str(tmp / "launchers.json")})


def case(n: int = 64, timeout_s: float = 60.0) -> Case:
    x = np.arange(n, dtype=np.float32)
    return Case(inputs={"x": x, "y": 2 * x}, outputs={"z": OutputSpec(shape=(n,), dtype="float32")}, block_dim=4,
                timeout_s=timeout_s, args=[ArgSpec(kind="tensor", name="x"), ArgSpec(kind="tensor", name="y"),
                                           ArgSpec(kind="tensor", name="z"), ArgSpec(kind="int", value=n)])


def starts(tmp: Path) -> list[list[str]]:
    f = tmp / "state" / "starts"
    return [line.split() for line in f.read_text().splitlines()] if f.exists() else []


@pytest.fixture
def tc(setup):
    t = CannToolchain(soc="Ascend910B2", worker_command=FAKE_WORKER)
    yield t
    t.close()


def test_ok_run_has_the_sim_shape_and_reuses_the_worker(tc, setup):
    r = tc.run(build_for(setup, "ok"), case())
    assert r.ok and r.toolchain == "cann" and r.block_dim == 4 and r.block_status == ["done"] * 4
    assert np.array_equal(r.outputs["z"], np.arange(64, dtype=np.float32) * 3)
    assert tc.run(build_for(setup, "ok"), case()).ok
    assert len(starts(setup)) == 1 and starts(setup)[0][1] == "0"


@pytest.mark.parametrize("kind, status, rule", [("fault507015", "crash", "kernel.crash"),
                                                ("vector507035", "crash", "kernel.crash"),
                                                ("mte", "rule_violation", "gm.out_of_bounds"),
                                                ("ub", "rule_violation", "ub.align"),
                                                ("timeout507014", "timeout", "kernel.timeout"),
                                                ("die", "crash", "worker.crash")])
def test_fault_then_restart_then_next_case(tc, setup, kind, status, rule):
    r = tc.run(build_for(setup, kind), case())
    assert (r.status, r.errors()[0].rule) == (status, rule), r.detail
    assert r.errors()[0].hint and r.detail
    assert len(starts(setup)) == 2                     # restarted (and health-checked) right after the fault
    nxt = tc.run(build_for(setup, "ok"), case())
    assert nxt.ok and len(starts(setup)) == 2


def test_mte_fault_names_block_and_core(tc, setup):
    d = tc.run(build_for(setup, "mte"), case()).errors()[0]
    assert d.block == 5 and d.values["core_id"] == 3 and "out of range" in d.message


def test_hung_kernel_is_killed(tc, setup, monkeypatch):
    monkeypatch.setattr(cann_run, "RUN_GRACE_S", 0.5)
    r = tc.run(build_for(setup, "hang"), case(timeout_s=0.5))
    assert (r.status, r.errors()[0].rule) == ("timeout", "kernel.timeout") and "gave no answer" in r.detail
    assert tc.run(build_for(setup, "ok"), case()).ok


def test_device_that_does_not_come_back_is_lost(tc, setup):
    r = tc.run(build_for(setup, "lost"), case())
    rules = [d.rule for d in r.errors()]
    assert r.status == "crash" and rules == ["kernel.crash", "npu.device_lost"]
    assert tc.worker(build_for(setup, "ok")).lost


def test_launcher_refusal_is_not_a_fault(tc, setup):
    r = tc.run(build_for(setup, "callerror"), case())
    assert (r.status, r.errors()[0].rule) == ("crash", "worker.error") and len(starts(setup)) == 1


@pytest.mark.parametrize("change, message", [
    (lambda c: c.args.pop(), "takes 4 arguments; the case gives 3"),
    (lambda c: c.args.__setitem__(0, ArgSpec(kind="int", value=1)), "needs a scalar parameter, not a pointer"),
    (lambda c: c.args.__setitem__(3, ArgSpec(kind="int", value=-1)), "cannot hold -1"),
    (lambda c: c.args.__setitem__(3, ArgSpec(kind="float", value=1.5)), "non-integer 1.5"),
    (lambda c: c.args.__setitem__(2, ArgSpec(kind="tensor", name="w")), "neither an input nor an output"),
    (lambda c: setattr(c, "block_dim", 0), "block_dim 0 is out of range"),
    (lambda c: setattr(c, "kernel", "sub"), "no launchable kernel 'sub'"),
])
def test_bad_cases_never_reach_the_device(tc, setup, change, message):
    c = case()
    change(c)
    r = tc.run(build_for(setup, "ok"), c)
    assert r.status == "bad_case" and message in r.detail and starts(setup) == []


def test_failed_build_is_not_run(tc, setup):
    r = tc.run(BuildResult(toolchain="cann", status="compile_error", project="add"), case())
    assert r.status == "build_error" and starts(setup) == []


def test_pool_runs_one_worker_per_device_and_drops_a_lost_one(setup):
    from kernelwright.tools.cann.client import NpuWorker
    env = dict(__import__("os").environ)
    kinds = ["ok", "lost", "ok", "ok", "ok", "ok"]
    with DevicePool([0, 1], env, command=FAKE_WORKER) as pool:
        results = pool.map(lambda w, kind: (w.device, cann_run.run_case(w, build_for(setup, kind), case())), kinds)
        assert pool.lost and len(pool.usable) == 1
    assert [r.status for _, r in results] == ["ok", "crash", "ok", "ok", "ok", "ok"]
    lost_device = results[1][0]
    after = [d for d, _ in results[2:]]
    assert lost_device not in after[1:]              # nothing runs on the lost device once it left the pool
    assert {s[1] for s in starts(setup)} == {"0", "1"}
    with pytest.raises(NoDevice):
        DevicePool([], env)
    assert isinstance(NpuWorker(0, env), NpuWorker)


def test_visible_devices():
    assert visible_devices({"ASCEND_RT_VISIBLE_DEVICES": "0,2, 3"}) == [0, 2, 3]
    assert visible_devices({}, count=2) == [0, 1]
    with pytest.raises(NoDevice, match="comma-separated"):
        visible_devices({"ASCEND_RT_VISIBLE_DEVICES": "a,b"})


def test_timing_result(tc, setup):
    ref = ReferenceSpec(source=str(setup / "model.py"), forward_args=[np.ones(4, np.float32)])
    t = tc.time(build_for(setup, "ok"), case(), reference=ref, config=TimingConfig(warmup=3, trials=30))
    assert t.ok and t.kernel.n == 30 and t.reference.n == 30
    assert t.kernel.median_ms == pytest.approx(1.01) and t.speedup_median == pytest.approx(2.0)
    assert t.flush_bytes == max(256 << 20, 2 * tc.soc.l2_bytes) == 384 << 20
    assert t.fresh_input_sets == 4 and "Ascend910B2" in t.device and t.warmup == 3
    bad = tc.time(build_for(setup, "fault507015"), case(), config=TimingConfig(trials=5))
    assert bad.status == "crash" and bad.diagnostics[0].rule == "kernel.crash" and bad.kernel is None
