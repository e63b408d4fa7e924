"""Handing a step's directories to its uid survives another step of the same build removing its private
temp dir meanwhile (seen as a FileNotFoundError traceback from sim_latency on a loaded machine)."""
import os

import pytest

from kernelwright.tools.buildkit import containment
from kernelwright.tools.buildkit.containment import View


@pytest.mark.skipif(os.geteuid() != 0, reason="hand_over changes owners only for a root caller")
def test_a_path_that_vanishes_during_hand_over_is_skipped(tmp_path, monkeypatch):
    (tmp_path / "kept.o").write_text("x")
    real_walk = os.walk

    def walk_seeing_a_gone_dir(top):          # the listing names a temp dir that is removed before its chown
        for root, dirs, files in real_walk(top):
            yield root, dirs + [".tmp-gone"], files

    monkeypatch.setattr(containment.os, "walk", walk_seeing_a_gone_dir)
    view = View(writable=(str(tmp_path),))
    containment.hand_over(view)
    assert (tmp_path / "kept.o").stat().st_uid == containment.sandbox_uid(view)
