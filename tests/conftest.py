"""Shared test setup: one emulation cache per test session (the runtime builds once, and
parallel workers wait on its lock), and markers for tests that need real CANN, an NPU or Ray."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

_CACHE = Path(os.environ.get("KERNELWRIGHT_TEST_HOME", Path(__file__).resolve().parent.parent / ".pytest_cache" / "kw-home"))
os.environ.setdefault("KERNELWRIGHT_HOME", str(_CACHE))


def _cann_available() -> bool:
    return bool(os.environ.get("ASCEND_HOME_PATH") or os.environ.get("ASCEND_TOOLKIT_HOME"))


def _npu_available() -> bool:
    try:
        from kernelwright._npu_guard import cann_runtime_loadable, torch_npu_installed
        return torch_npu_installed() and cann_runtime_loadable()
    except Exception:
        return False


def _ray_installed() -> bool:
    from importlib.metadata import PackageNotFoundError, version
    try:                               # the distribution, not find_spec: a checkout in a folder named `ray` is no Ray
        return bool(version("ray"))
    except PackageNotFoundError:
        return False


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    skip_cann = pytest.mark.skip(reason="needs a CANN toolkit (ASCEND_HOME_PATH)")
    skip_npu = pytest.mark.skip(reason="needs an Ascend NPU with torch_npu")
    skip_ray = pytest.mark.skip(reason="needs Ray (pip install 'kernelwright[ray]')")
    cann, npu, ray = _cann_available(), _npu_available(), _ray_installed()
    for item in items:
        # markers, not keywords: keywords also hold directory names (tests/cann/)
        if item.get_closest_marker("cann") and not cann:
            item.add_marker(skip_cann)
        if item.get_closest_marker("npu") and not npu:
            item.add_marker(skip_npu)
        if item.get_closest_marker("ray") and not ray:
            item.add_marker(skip_ray)


@pytest.fixture(scope="session")
def sim():
    from kernelwright.tools.sim.toolchain import SimToolchain
    return SimToolchain()
