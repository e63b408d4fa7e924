"""The real NPU worker (`python -m kernelwright.tools.cann.worker`) end to end on the CPU: a stand-in
torch_npu (fake_torch_npu/) provides `torch.npu`, a fake CANN tree's lib64 provides libhccl.so (so
kernelwright's guard sees a usable stack, as after `source set_env.sh`), and a launcher library
compiled here with g++ plays the built kernel. This checks what the NPU cannot be needed for: the
C argument array (pointers, scalars packed in the parameter's type, by-value bytes, tiling and
workspace buffers), the raw stream handed to the launcher, in-place and unwritten outputs, dtype
round trips, timing with the reference in the same worker, and a fault raised by synchronize."""
from __future__ import annotations

import json
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import cann_fakes as fk  # noqa: E402

from kernelwright.tools.cann.signatures import kernel_signatures
from kernelwright.tools.cann.toolchain import CannToolchain
from kernelwright.tools.timing import ReferenceSpec, TimingConfig
from kernelwright.tools.toolchain import ArgSpec, BuildResult, Case, OutputSpec

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is needed to build the stand-in launcher")

KERNELS = r'''
extern "C" __global__ __aicore__ void add_scaled(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t n, float scale) {}
extern "C" __global__ __aicore__ void twice_inplace(GM_ADDR x, int64_t n) {}
extern "C" __global__ __aicore__ void tiled(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling) {}
extern "C" __global__ __aicore__ void half_written(GM_ADDR x, GM_ADDR z, uint32_t n) {}
extern "C" __global__ __aicore__ void copy16(GM_ADDR x, GM_ADDR z, uint16_t n, Extra e) {}
'''
LAUNCHERS = r'''
#include <cstdint>
#include <cstring>
struct Extra { uint32_t a; uint32_t b; };
static bool on_npu_stream(void* s) { return reinterpret_cast<uintptr_t>(s) == 0x5EED; }
extern "C" int32_t kw_launch_add_scaled(uint32_t blockDim, void* stream, void** args) {
    if (!on_npu_stream(stream) || blockDim != 8) return 9;
    const float* x = (const float*)args[0]; const float* y = (const float*)args[1]; float* z = (float*)args[2];
    uint32_t n = *(uint32_t*)args[3]; float s = *(float*)args[4];
    for (uint32_t i = 0; i < n; ++i) z[i] = (x[i] + y[i]) * s;
    return 0;
}
extern "C" int32_t kw_launch_twice_inplace(uint32_t, void*, void** args) {
    float* x = (float*)args[0]; int64_t n = *(int64_t*)args[1];
    for (int64_t i = 0; i < n; ++i) x[i] *= 2;
    return 0;
}
extern "C" int32_t kw_launch_tiled(uint32_t, void*, void** args) {
    const float* x = (const float*)args[0]; float* z = (float*)args[1];
    uint8_t* ws = (uint8_t*)args[2]; uint32_t n; float bias;
    std::memcpy(&n, args[3], 4); std::memcpy(&bias, (uint8_t*)args[3] + 4, 4);
    ws[(16u << 20) + 63] = 1;     // the user workspace sits behind the 16 MiB system workspace
    for (uint32_t i = 0; i < n; ++i) z[i] = x[i] + bias;
    return 0;
}
extern "C" int32_t kw_launch_half_written(uint32_t, void*, void** args) {
    const float* x = (const float*)args[0]; float* z = (float*)args[1]; uint32_t n = *(uint32_t*)args[2];
    for (uint32_t i = 0; i < n / 2; ++i) z[i] = x[i];
    return 0;
}
extern "C" int32_t kw_launch_copy16(uint32_t, void*, void** args) {
    uint16_t n = *(uint16_t*)args[2]; Extra e = *(Extra*)args[3];
    if (e.a != 7 || e.b != 9) return 5;
    std::memcpy(args[1], args[0], n * 2u);
    return 0;
}
'''
MODEL = '''
import torch
class Model(torch.nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale
    def forward(self, x, y):
        return (x + y) * self.scale
'''


@pytest.fixture(scope="module")
def launcher(tmp_path_factory):
    d = tmp_path_factory.mktemp("launcher")
    (d / "kw.cpp").write_text(LAUNCHERS)
    subprocess.run(["g++", "-shared", "-fPIC", "-O1", "-o", str(d / "libkw_launch.so"), str(d / "kw.cpp")], check=True)
    sigs = {s.name: s.model_dump() for s in kernel_signatures({"k.cpp": KERNELS}, ["k.cpp"])}
    (d / "launchers.json").write_text(json.dumps(sigs))
    (d / "hccl.cpp").write_text("extern \"C\" int kw_fake_hccl() { return 0; }\n")
    subprocess.run(["g++", "-shared", "-fPIC", "-o", str(d / "libhccl.so"), str(d / "hccl.cpp")], check=True)
    return d


@pytest.fixture(scope="module")
def stack(tmp_path_factory, launcher):
    """A fake install whose lib64 has libhccl.so (set_env.sh puts it on LD_LIBRARY_PATH) and the stand-in torch_npu."""
    tmp = tmp_path_factory.mktemp("stack")
    root = fk.make_fake_cann(tmp / "Ascend/ascend-toolkit/latest", "8.1.RC1")
    shutil.copy(launcher / "libhccl.so", root / "lib64" / "libhccl.so")
    with pytest.MonkeyPatch.context() as mp:
        fk.fake_env(mp, root, tmp / "tools.log", tmp / "home")
        mp.setenv("PYTHONPATH", str(Path(__file__).with_name("fake_torch_npu")))
        mp.setenv("KERNELWRIGHT_NPU_DEVICE", "cpu")
        yield mp


@pytest.fixture(scope="module")
def tc(stack):
    t = CannToolchain(soc="Ascend910B2")      # one worker for the module: it imports torch once
    yield t
    t.close()


def build(launcher: Path) -> BuildResult:
    return BuildResult(toolchain="cann", status="ok", project="k", kernels=["add_scaled"],
                       artifacts={"library": str(launcher / "libkw_launch.so"), "launchers": str(launcher / "launchers.json")})


def add_case(n: int = 1000, scale: float = 0.5) -> Case:
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    return Case(kernel="add_scaled", inputs={"x": x, "y": y}, outputs={"z": OutputSpec(shape=(n,), dtype="float32")},
                block_dim=8, args=[ArgSpec(kind="tensor", name="x"), ArgSpec(kind="tensor", name="y"),
                                   ArgSpec(kind="tensor", name="z"), ArgSpec(kind="int", value=n),
                                   ArgSpec(kind="float", value=scale)])


def test_hello_reports_the_device(tc, launcher):
    info = tc.worker(build(launcher)).start()
    assert info.ok and info.data["soc"] == "Ascend910B2" and info.data["versions"]["torch_npu"] == "0.0+fake"


def test_pointers_scalars_and_the_raw_stream(tc, launcher):
    c = add_case()
    r = tc.run(build(launcher), c)
    assert r.ok, r.detail
    np.testing.assert_array_equal(r.outputs["z"], (c.inputs["x"] + c.inputs["y"]) * np.float32(0.5))
    c.block_dim = 4                      # the launcher refuses anything but 8 blocks: a refusal, not a fault
    bad = tc.run(build(launcher), c)
    assert bad.status == "crash" and bad.errors()[0].rule == "worker.error" and "returned 9" in bad.detail


def test_in_place_tiling_workspace_and_unwritten_outputs(tc, launcher):
    x = np.arange(10, dtype=np.float32)
    inplace = Case(kernel="twice_inplace", inputs={"x": x}, outputs={"x": OutputSpec(shape=(10,), dtype="float32")},
                   block_dim=1, args=[ArgSpec(kind="tensor", name="x"), ArgSpec(kind="int", value=10)])
    np.testing.assert_array_equal(tc.run(build(launcher), inplace).outputs["x"], 2 * x)
    tiling = struct.pack("<If", 10, 1.5).hex()
    tiled = Case(kernel="tiled", inputs={"x": x}, outputs={"z": OutputSpec(shape=(10,), dtype="float32")}, block_dim=1,
                 args=[ArgSpec(kind="tensor", name="x"), ArgSpec(kind="tensor", name="z"),
                       ArgSpec(kind="workspace", bytes=64), ArgSpec(kind="tiling", value=tiling)])
    r = tc.run(build(launcher), tiled)
    assert r.ok, r.detail
    np.testing.assert_array_equal(r.outputs["z"], x + 1.5)
    half = Case(kernel="half_written", inputs={"x": x}, outputs={"z": OutputSpec(shape=(10,), dtype="float32")},
                block_dim=1, args=[ArgSpec(kind="tensor", name="x"), ArgSpec(kind="tensor", name="z"),
                                   ArgSpec(kind="int", value=10)])
    z = tc.run(build(launcher), half).outputs["z"]
    assert np.array_equal(z[:5], x[:5]) and np.isnan(z[5:]).all()     # unwritten: the 0xFF poison, as on the sim
    poison = "a55a857f"                                                 # the referee's: a NaN payload, little-endian
    half.outputs["z"].poison = poison
    z = tc.run(build(launcher), half).outputs["z"]
    assert np.array_equal(z[:5], x[:5]) and all(v.tobytes().hex() == poison for v in z[5:])


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16])
def test_16_bit_dtypes_and_by_value_structs(tc, launcher, dtype):
    x = (np.arange(32) / 7).astype(dtype)
    name = "bfloat16" if dtype is ml_dtypes.bfloat16 else "float16"
    c = Case(kernel="copy16", inputs={"x": x}, outputs={"z": OutputSpec(shape=(32,), dtype=name)}, block_dim=1,
             args=[ArgSpec(kind="tensor", name="x"), ArgSpec(kind="tensor", name="z"), ArgSpec(kind="int", value=32),
                   ArgSpec(kind="bytes", value=struct.pack("<II", 7, 9).hex())])
    r = tc.run(build(launcher), c)
    assert r.ok, r.detail
    assert r.outputs["z"].dtype == x.dtype and r.outputs["z"].view(np.uint16).tolist() == x.view(np.uint16).tolist()


def test_timing_with_the_reference_in_the_same_worker(tc, launcher, tmp_path):
    (tmp_path / "model.py").write_text(MODEL)
    c = add_case(4096)
    ref = ReferenceSpec(source=str(tmp_path / "model.py"), init_args=[0.5],
                        forward_args=[c.inputs["x"], c.inputs["y"]])
    t = tc.time(build(launcher), c, reference=ref, config=TimingConfig(warmup=2, trials=6))
    assert t.ok, t.detail
    assert t.kernel.n == 6 and t.reference.n == 6 and t.kernel.min_ms > 0 and t.speedup_median > 0
    assert t.flush_bytes == 384 << 20 and t.fresh_input_sets == 6
    assert "Ascend910B2" in t.device and t.versions["torch_npu"] == "0.0+fake"
    broken = ReferenceSpec(source=str(tmp_path / "missing.py"))
    t2 = tc.time(build(launcher), c, reference=broken, config=TimingConfig(warmup=0, trials=2, flush=False))
    assert t2.ok and t2.reference is None and "could not be timed" in t2.notes[0] and t2.flush_bytes == 0


def test_fault_reported_by_synchronize_restarts_the_worker(stack, launcher, monkeypatch):
    monkeypatch.setenv("KW_FAKE_SYNC_ERROR", "NPU function error: c10_npu::acl::AclrtSynchronizeStreamWithTimeout"
                                             "(stream()), error code is 507015\n[Error]: The aicore execution is abnormal.")
    tc = CannToolchain(soc="Ascend910B2")
    r = tc.run(build(launcher), add_case())
    assert r.status == "crash" and r.errors()[0].rule == "kernel.crash" and "507015" in r.detail
    worker = tc.worker(build(launcher))
    assert worker.starts == 2 and worker.alive() and not worker.lost
    tc.close()
