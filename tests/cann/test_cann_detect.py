"""Detection of the real stack without the real stack: CANN installs (fake trees), the SoC of the
visible NPUs from `npu-smi info` text, the environment set_env.sh sets, and the doctor rows."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import cann_fakes as fk  # noqa: E402

from kernelwright.tools.cann.detect import cpu_debug_include_dirs, detect_cann
from kernelwright.tools.cann.devices import parse_npu_smi, soc_for_name, torch_npu_state
from kernelwright.tools.cann.env import cann_env, opp_env, worker_env

SMI_910B = """
+------------------------------------------------------------------------------------------------+
| npu-smi 24.1.rc1                 Version: 24.1.rc1                                             |
+---------------------------+---------------+----------------------------------------------------+
| NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|
| Chip                      | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |
+===========================+===============+====================================================+
| 0     910B2C              | OK            | 86.8        35                0    / 0             |
| 0                         | 0000:66:00.0  | 0           0    / 0          59356/ 65536         |
+===========================+===============+====================================================+
| 1     910B4               | Critical      | 103.1       37                0    / 0             |
| 0                         | 0000:19:00.0  | 0           0    / 0          3356 / 32768         |
+===========================+===============+====================================================+
+---------------------------+---------------+----------------------------------------------------+
| NPU     Chip              | Process id    | Process name             | Process memory(MB)      |
+===========================+===============+====================================================+
| 0       0                 | 777           | python                   | 36000                   |
+===========================+===============+====================================================+
"""
SMI_A3 = """
| NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|
| Chip  Phy-ID              | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |
+===========================+===============+====================================================+
| 0     Ascend910           | OK            | 178.7       37                0    / 0             |
| 0     0                   | 0000:9D:00.0  | 0           0    / 0          3419 / 65536         |
+------------------------------------------------------------------------------------------------+
| 0     Ascend910           | OK            | -           36                0    / 0             |
| 1     1                   | 0000:9F:00.0  | 0           0    / 0          3196 / 65536         |
"""
SMI_310P = """
| NPU   Name   | Health      | Power(W)  Temp(C)           Hugepages-Usage(page|
| Chip  Device | Bus-Id      | AICore(%) Memory-Usage(MB)                      |
+============================+===========+====================================+
| 0     310P3  | OK          | NA        51                996   / 996         |
| 0     0      | 0000:01:00.0| 0         3841 / 21527                          |
"""


def test_npu_smi_910b_rows_and_process_table_ignored():
    chips = parse_npu_smi(SMI_910B)
    assert [(c.logical_id, c.npu, c.name, c.health, c.bus_id) for c in chips] == [
        (0, 0, "910B2C", "OK", "0000:66:00.0"), (1, 1, "910B4", "Critical", "0000:19:00.0")]
    assert [c.soc for c in chips] == ["Ascend910B2", "Ascend910B4"]


def test_npu_smi_a3_two_chips_per_npu_and_310p():
    a3 = parse_npu_smi(SMI_A3)
    assert [(c.logical_id, c.npu, c.chip) for c in a3] == [(0, 0, 0), (1, 0, 1)]
    assert {c.soc for c in a3} == {"Ascend910_9392"}
    assert [c.soc for c in parse_npu_smi(SMI_310P)] == ["Ascend310P3"]


@pytest.mark.parametrize("name, chips, soc", [("910B3", 1, "Ascend910B3"), ("Ascend910B2", 1, "Ascend910B2"),
                                              ("Ascend910_9392", 1, "Ascend910_9392"), ("Ascend910", 1, None),
                                              ("310P1", 1, "Ascend310P1"), ("Atlas999", 1, None)])
def test_soc_names(name, chips, soc):
    assert soc_for_name(name, chips) == soc


def test_cann8_install_version_flow_and_set_env(tmp_path):
    root = fk.make_fake_cann(tmp_path / "ascend-toolkit" / "latest", "8.1.RC1")
    inst = detect_cann({"ASCEND_TOOLKIT_HOME": str(root)})
    assert inst and inst.root == root.resolve() and inst.source == "ASCEND_TOOLKIT_HOME"
    assert inst.version == "8.1.RC1" and inst.version_tuple == (8, 1) and inst.major == 8
    assert inst.version_file == root / fk.ARCH / "ascend_toolkit_install.info"
    assert inst.flow == "ascendc_library" and inst.kernel_cmake_dir == root / "compiler/tikcpp/ascendc_kernel_cmake"
    assert inst.package_flow.name == "msopgen" and inst.asc_config_dir is None
    assert inst.set_env == root.parent / "set_env.sh"          # ascend-toolkit/set_env.sh, beside latest/
    assert root / "compiler/tikcpp/tikcfw" in cpu_debug_include_dirs(inst)
    assert "ascendc_library" in inst.describe() and "8.1.RC1" in inst.describe()


def test_cann91_install_uses_the_asc_flow(tmp_path):
    root = fk.make_fake_cann(tmp_path / "cann", "9.1.0", kernel_cmake=False)
    inst = detect_cann({"ASCEND_HOME_PATH": str(root)})
    assert inst.version == "9.1.0" and inst.flow == "asc" and inst.asc_config_dir == root / "lib64/cmake"
    assert inst.package_flow.name == "npu_op"
    # 9.0 with the ascendc_library modules still builds kernel launches with them
    old = fk.make_fake_cann(tmp_path / "c90", "9.0.0")
    assert detect_cann({"ASCEND_HOME_PATH": str(old)}).flow == "ascendc_library"


def test_incomplete_install_has_no_flow(tmp_path):
    root = fk.make_fake_cann(tmp_path / "Ascend/ascend-toolkit/latest", "8.0.RC3", kernel_cmake=False, templates=False)
    inst = detect_cann({"ASCEND_HOME_PATH": str(root)})
    assert inst.flow is None and inst.package_flow.name is None
    assert "ascendc.cmake" in inst.launch_flow.why and "op_project_templates" in inst.package_flow.why


def test_nothing_found(tmp_path, monkeypatch):
    monkeypatch.setattr("kernelwright.tools.cann.detect.DEFAULT_ROOTS", [str(tmp_path / "nope")])
    assert detect_cann({}) is None


def test_set_env_is_sourced_and_private_opp_goes_first(tmp_path):
    root = fk.make_fake_cann(tmp_path / "Ascend/ascend-toolkit/latest", "8.1.RC1")
    inst = detect_cann({"ASCEND_HOME_PATH": str(root)})
    env = cann_env(inst, {"PATH": "/usr/bin", "ASCEND_CUSTOM_OPP_PATH": "/elsewhere"})
    assert env["KW_FAKE_SET_ENV"] == "sourced" and env["ASCEND_OPP_PATH"] == f"{root}/opp"
    assert env["PATH"].split(":")[0] == f"{root}/bin" and env["ASCEND_CANN_PACKAGE_PATH"] == str(root)
    driver = tmp_path / "Ascend" / "driver" / "lib64"       # 8.1's set_env.sh leaves the driver out; we add it
    assert env["LD_LIBRARY_PATH"].split(":")[-2:] == [str(driver / "common"), str(driver / "driver")]
    vendor = tmp_path / "build" / "opp" / "vendors" / "customize"
    private = opp_env(env, vendor)
    assert private["ASCEND_CUSTOM_OPP_PATH"].split(":") == [str(vendor), "/elsewhere"]
    assert private["LD_LIBRARY_PATH"].split(":")[0] == str(vendor / "op_api" / "lib")
    assert env["ASCEND_CUSTOM_OPP_PATH"] == "/elsewhere"      # the global value is not changed
    w = worker_env(private, 3)
    assert w["ASCEND_RT_VISIBLE_DEVICES"] == "3" and w["PYTHONUNBUFFERED"] == "1"


def test_broken_set_env_is_an_environment_error(tmp_path):
    from kernelwright.tools.cann.env import EnvError
    root = fk.make_fake_cann(tmp_path / "Ascend/ascend-toolkit/latest", "8.1.RC1")
    (root / "set_env.sh").write_text("exit 7\n")
    with pytest.raises(EnvError, match="set_env.sh"):
        cann_env(detect_cann({"ASCEND_HOME_PATH": str(root)}))


def test_torch_npu_not_installed_is_reported_not_raised():
    state = torch_npu_state()
    assert not state.usable and "torch_npu" in state.detail


def test_doctor_rows_with_a_fake_install(tmp_path, monkeypatch):
    from kernelwright.agent.doctor_checks import cann_install, npu_devices, npu_state
    root = fk.make_fake_cann(tmp_path / "Ascend/ascend-toolkit/latest", "8.2.RC1")
    monkeypatch.setenv("ASCEND_HOME_PATH", str(root))
    row = cann_install()
    assert row["status"] == "ok" and "CANN 8.2.RC1" in row["found"] and "cann-syntax" in row["enables"]
    fakebin = tmp_path / "bin"
    fakebin.mkdir()
    smi = fakebin / "npu-smi"
    smi.write_text(f"#!/bin/sh\ncat <<'EOF'\n{SMI_910B}\nEOF\n")
    smi.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fakebin}:{__import__('os').environ['PATH']}")
    devices = npu_devices()
    assert devices["status"] == "failed" and "Ascend910B2" in devices["found"] and "unhealthy: 1: Critical" in devices["found"]
    assert npu_state()["status"] == "missing"
