"""Fixtures shared by the real backend's contract tests: a fake CANN 8.1 or 9.1 toolkit (cann_fakes)
that detection finds, with the cache in `<tmp>/home` and the fake tools' log in `<tmp>/tools.log`."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import cann_fakes as fk  # noqa: E402


@pytest.fixture
def cann8(tmp_path, monkeypatch):
    root = fk.make_fake_cann(tmp_path / "Ascend" / "ascend-toolkit" / "latest", "8.1.RC1")
    fk.fake_env(monkeypatch, root, tmp_path / "tools.log", tmp_path / "home")
    return root


@pytest.fixture
def cann91(tmp_path, monkeypatch):
    root = fk.make_fake_cann(tmp_path / "Ascend" / "cann", "9.1.0")
    fk.fake_env(monkeypatch, root, tmp_path / "tools.log", tmp_path / "home")
    return root
