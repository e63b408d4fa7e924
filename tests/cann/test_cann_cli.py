"""`--backend cann` / `cann-syntax` on the commands that take a backend, through the backend registry,
against a fake CANN tree: exit codes (0 built, 1 kernel error, 2 bad input or environment) and
messages that say what to do."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import cann_fakes as fk  # noqa: E402

from kernelwright.agent.cli import main
from kernelwright.tools.backends import BACKENDS, UnknownBackend, get_toolchain

REFEREE = Path(__file__).resolve().parents[1] / "referee" / "fixtures"


@pytest.fixture
def cann(tmp_path, monkeypatch):
    root = fk.make_fake_cann(tmp_path / "Ascend/ascend-toolkit/latest", "8.1.RC1")
    (root / "compiler/tikcpp/tikcfw/kernel_operator.h").write_text("#pragma once\n")
    fk.fake_env(monkeypatch, root, tmp_path / "tools.log", tmp_path / "home")
    monkeypatch.setenv("KERNELWRIGHT_CANN_CXX", str(fk.fake_tool(tmp_path / "fakebin" / "fake-cxx")))
    return root


def test_registry():
    assert list(BACKENDS) == ["sim", "cann", "cann-syntax"]
    assert get_toolchain("cann", soc="Ascend910B4", msopgen=True, compiler="ignored").name == "cann"
    assert get_toolchain("cann", soc="Ascend910B4").soc.name == "Ascend910B4"
    assert get_toolchain("cann-syntax", msopgen=True).name == "cann-syntax"
    assert get_toolchain("sim").name == "sim"
    with pytest.raises(UnknownBackend, match="known: sim, cann, cann-syntax"):
        get_toolchain("gpu")


def write_kernel(tmp_path: Path, text: str = fk.ADD_KERNEL) -> Path:
    f = tmp_path / "add_scaled.cpp"
    f.write_text(text)
    return f


def test_build_cann(cann, tmp_path, capsys):
    assert main(["build", str(write_kernel(tmp_path)), "--backend", "cann", "--soc", "Ascend910B2"]) == 0
    assert "add_scaled: built on cann" in capsys.readouterr().out
    bad = write_kernel(tmp_path, fk.ADD_KERNEL.replace("    xg.Set", "    Foo(); // KW_FAKE_ERROR(no_member)\n    xg.Set"))
    assert main(["build", str(bad), "--backend", "cann", "--json"]) == 1
    result = json.loads(capsys.readouterr().out)
    assert result["status"] == "compile_error" and result["diagnostics"][0]["line"] == 6


def test_build_cann_syntax(cann, tmp_path, capsys):
    assert main(["build", str(write_kernel(tmp_path)), "--backend", "cann-syntax"]) == 0
    assert "built on cann-syntax" in capsys.readouterr().out


def test_msopgen_needs_the_opt_in(cann, capsys):
    assert main(["build", str(REFEREE / "add_scale"), "--backend", "cann"]) == 2
    assert "opt-in compatibility mode" in capsys.readouterr().out
    assert main(["build", str(REFEREE / "add_scale"), "--backend", "cann", "--msopgen"]) == 0


def test_no_cann_is_exit_2(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("ASCEND_HOME_PATH", raising=False)
    monkeypatch.delenv("ASCEND_TOOLKIT_HOME", raising=False)
    monkeypatch.delenv("ASCEND_CANN_PACKAGE_PATH", raising=False)
    monkeypatch.setattr("kernelwright.tools.cann.detect.DEFAULT_ROOTS", [])
    for backend in ("cann", "cann-syntax"):
        assert main(["build", str(write_kernel(tmp_path)), "--backend", backend]) == 2
        assert "no CANN toolkit found" in capsys.readouterr().out


def test_verify_refuses_backends_that_cannot_run(cann, capsys):
    task = REFEREE / "tasks" / "add_scale_tiny.py"
    args = ["verify", str(REFEREE / "scale_add_kl" / "scale_add_kl.cpp"), "--task", str(task),
            "--launch", str(REFEREE / "scale_add_kl" / "launch.json")]
    assert main(args + ["--backend", "cann-syntax"]) == 2
    assert "only compile-checks" in capsys.readouterr().err
    assert main(args + ["--backend", "cann"]) == 2
    assert "cannot run kernels here: torch_npu is not installed" in capsys.readouterr().err


def test_doctor_json_has_the_real_backend_rows(cann, capsys):
    main(["doctor", "--json"])
    rows = {r["check"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["CANN toolkit"]["status"] == "ok" and "ascendc_library" in rows["CANN toolkit"]["found"]
    assert rows["NPU devices"]["status"] == "missing" and rows["torch_npu"]["status"] == "missing"
