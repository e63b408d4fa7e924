"""End to end: an operator imported from a benchmark format builds and runs on the sim toolchain."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import formats_fixtures as fx  # noqa: E402

from kernelwright.tools.formats import export, load, loads, render  # noqa: E402
from kernelwright.tools.toolchain import ArgSpec, Case  # noqa: E402


@pytest.mark.parametrize("n,dtype,alpha", [(1000, np.float32, 1.5), (77, np.float16, None)])
def test_msopgen_op_imported_from_mkb_builds_and_runs(sim, tmp_path, n, dtype, alpha):
    source = load(fx.msopgen_dir(tmp_path / "src"))
    answer = export(source, "mkb", tmp_path / "answer.py").paths[0]
    project = load(answer)
    b = sim.build(project)
    assert b.ok, [d.render() for d in b.diagnostics]
    assert b.kernels == ["scaled_sub_custom"] and [a.name for a in b.op.attrs] == ["alpha"]
    rng = np.random.default_rng(n)
    x, y = rng.standard_normal(n).astype(dtype), rng.standard_normal(n).astype(dtype)
    r = sim.run(b, Case(inputs={"x": x, "y": y}, attrs={} if alpha is None else {"alpha": alpha}))
    assert r.status == "ok", [d.render() for d in r.diagnostics] + [r.detail]
    a = 0.5 if alpha is None else alpha
    tol = 1e-6 if dtype == np.float32 else 2e-3
    np.testing.assert_allclose(r.outputs["z"].astype(np.float32), x.astype(np.float32) - a * y.astype(np.float32),
                               rtol=tol, atol=tol)


def test_kernel_launch_op_imported_from_akb_and_direct_json_runs(sim, tmp_path):
    export(fx.asc_project(), "akb", tmp_path / "akb")
    direct = loads(next(iter(render(fx.launch_project(), "mkb-direct").files.values())))
    x = np.arange(300, dtype=np.float32)
    for project in (load(tmp_path / "akb"), direct):
        b = sim.build(project)
        assert b.ok and b.kernels == ["twice_kernel"], [d.render() for d in b.diagnostics]
        r = sim.run(b, Case(inputs={"x": x}, outputs={"y": {"shape": (300,), "dtype": "float32"}}, kernel="twice_kernel",
                            block_dim=2, args=[ArgSpec(kind="tensor", name="x"), ArgSpec(kind="tensor", name="y"),
                                               ArgSpec(kind="int", value=300)]))
        assert r.status == "ok", [d.render() for d in r.diagnostics] + [r.detail]
        np.testing.assert_array_equal(r.outputs["y"], 2 * x)


@pytest.mark.cann
def test_cann_directory_builds_with_build_sh(tmp_path):
    """With a real CANN toolkit: the exported directory builds into a custom_opp_*.run package."""
    import subprocess
    export(load(fx.msopgen_dir(tmp_path / "src")), "cann", tmp_path / "op")
    r = subprocess.run(["bash", "build.sh"], cwd=tmp_path / "op", capture_output=True, text=True, timeout=1800)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert list((tmp_path / "op" / "build_out").glob("custom_opp_*.run"))
    assert json.loads((tmp_path / "op" / "CMakePresets.json").read_text())
