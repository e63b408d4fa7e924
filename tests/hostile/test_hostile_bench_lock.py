"""One writer per bench output directory: while a bench holds `--out`, a second bench into it refuses
with one line and exit 2 (before it writes anything), and the lock goes away with its holder."""
import os
import subprocess
import sys

import pytest

from kernelwright.agent.cli import main
from kernelwright.evals.bench.lock import LOCK, OutInUse, out_lock


def test_a_second_holder_is_refused_and_the_first_release_frees_it(tmp_path):
    with out_lock(tmp_path / "out"):
        with pytest.raises(OutInUse, match=f"in use by another bench \\(pid {os.getpid()}\\)"):
            with out_lock(tmp_path / "out"):
                pass
    with out_lock(tmp_path / "out"):
        pass


@pytest.mark.parametrize("executor", [[], ["--executor", "ray", "--address", "127.0.0.1:9"]])
def test_second_bench_on_one_out_exits_2_with_one_line(tmp_path, capsys, executor):
    out = tmp_path / "out"            # whichever executor would run the tries, the lock is taken first
    with out_lock(out):
        before = sorted(p.name for p in out.iterdir())
        assert main(["bench", "builtin", "--filter", "name=relu_ragged", "--out", str(out), *executor]) == 2
        assert sorted(p.name for p in out.iterdir()) == before == [LOCK]
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "in use by another bench" in err


def test_lock_dies_with_a_killed_holder(tmp_path):
    out = tmp_path / "out"
    holder = subprocess.Popen([sys.executable, "-c", "import sys, time; from pathlib import Path\n"
                               "from kernelwright.evals.bench.lock import out_lock\n"
                               f"with out_lock(Path({str(out)!r})):\n    print('held', flush=True); time.sleep(60)"],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(OutInUse, match=f"pid {holder.pid}"):
            with out_lock(out):
                pass
    finally:
        holder.kill()
        holder.wait()
    with out_lock(out):
        pass


def test_out_that_is_a_file_is_one_line(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(OutInUse, match="not a directory"):
        with out_lock(tmp_path / "f"):
            pass
