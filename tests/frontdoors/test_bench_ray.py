"""`kernelwright bench --executor ray` on a local Ray instance (loopback, 1 CPU), end to end through the
CLI: a task that kills its bench worker is recorded as `crashed`, as the local executor records it
(tests/frontdoors/test_bench_run.py); a task that kills the Ray worker running it is lost, run again
`bench.retries` times, and then recorded once as an `infrastructure` failure, not as a verdict. Every
task ends with exactly one row, and no worker outlives the bench."""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from frontdoor_env import KERNELWRIGHT, bench_workers, child_env  # noqa: E402
from hostile_tasks import TEMPLATE  # noqa: E402

pytestmark = pytest.mark.ray

# Kills the first ancestor that is a Ray worker (its process title is `ray::<task>`); harmless elsewhere.
KILL_RAY_WORKER = """pid = os.getpid()
    for _ in range(8):
        pid = int(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[1])
        if pid <= 1:
            break
        if open(f"/proc/{pid}/cmdline", "rb").read().startswith(b"ray::"):
            os.kill(pid, signal.SIGKILL)
            break"""


def test_ray_bench_records_worker_crashes_as_verdicts_and_lost_tries_as_infrastructure(tmp_path):
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    (tasks / "crash_worker.py").write_text(TEMPLATE.format(
        doc="Kills the bench worker that runs it.", action="os.kill(_bench_worker(), signal.SIGKILL)",
        forward="return torch.relu(x)"))
    (tasks / "kill_ray_worker.py").write_text(TEMPLATE.format(
        doc="Kills the Ray worker that runs it.", action=KILL_RAY_WORKER, forward="return torch.relu(x)"))
    (tasks / "tasks.txt").write_text("crash_worker.py\nkill_ray_worker.py\n")
    config = tmp_path / "kw.yaml"
    config.write_text("bench:\n  retries: 1\n  memory_gb: 0\n")
    out = tmp_path / "out"
    proc = subprocess.run([str(KERNELWRIGHT), "bench", str(tasks / "tasks.txt"), "--executor", "ray", "--jobs", "1",
                           "--timeout", "120", "--config", str(config), "--out", str(out)],
                          capture_output=True, text=True, env=child_env(), timeout=540)
    assert proc.returncode == 0, proc.stderr[-3000:]

    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert sorted(r["task"] for r in rows) == ["crash_worker", "kill_ray_worker"], rows      # one row each
    crash, lost = sorted(rows, key=lambda r: r["task"])
    assert crash["status"] == "crashed" and "signal 9 (SIGKILL)" in crash["reason"], crash
    assert crash["node"].startswith("127.0.0.1/") and crash["artifacts"] == str(out.resolve() / "runs" / "crash_worker.a0")
    assert (out / "runs" / "crash_worker.a0" / "spec.json").exists()        # the node's artifacts came back
    assert lost["status"] == "infrastructure" and lost["reason"].startswith("lost 2 time(s)"), lost
    assert "not a kernel verdict" in lost["reason"] and "2. " in lost["reason"]
    assert "kill_ray_worker#0: lost" in proc.stderr and "running it again in 10 s (1 of 1)" in proc.stderr
    assert "per node: 127.0.0.1/" in proc.stderr

    summary = json.loads((out / "summary.json").read_text())
    assert summary["overall"]["runs"] == 1 and summary["overall"]["statuses"] == {"crashed": 1}, summary
    assert any("1 run(s) lost to infrastructure" in n for n in summary["notes"]), summary["notes"]
    deadline = time.monotonic() + 10
    while (bench_workers("crash_worker.a0") or bench_workers("kill_ray_worker.a0")) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not bench_workers("crash_worker.a0") and not bench_workers("kill_ray_worker.a0")


# Waits under a bench worker (long enough for the test to take its node away), then kills that worker:
# a quick `crashed` verdict wherever it finally runs.
SLOW_CRASH = "time.sleep(12)\n    os.kill(_bench_worker(), signal.SIGKILL)"


@pytest.mark.slow      # on demand: in the full suite it is lost on every retry (cause not found yet; passes alone)
def test_a_try_lost_with_its_node_runs_again_on_another_node(tmp_path):
    """A cluster on loopback (a head with no CPU for tries, and one worker node); once the try runs there,
    a second node joins and the first is killed: the try is lost, submitted again, and ends with one row
    from the second node."""
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    (tasks / "slow_crash.py").write_text(TEMPLATE.format(doc="Kills its bench worker after a while.", action=SLOW_CRASH,
                                                         forward="return torch.relu(x)"))
    config = tmp_path / "kw.yaml"       # 3 retries: on a loaded machine Ray may take a while to see the node dead
    config.write_text("bench:\n  retries: 3\n  memory_gb: 0\n")
    out = tmp_path / "out"
    cluster = subprocess.Popen([sys.executable, str(Path(__file__).with_name("ray_cluster.py"))], cwd=tmp_path,
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=child_env())
    try:
        address = cluster.stdout.readline().split()[1]
        first = cluster.stdout.readline().split()[1]
        bench = subprocess.Popen([str(KERNELWRIGHT), "bench", str(tasks / "slow_crash.py"), "--executor", "ray",
                                  "--address", address, "--timeout", "120", "--config", str(config),
                                  "--out", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                 env=child_env())
        deadline = time.monotonic() + 240
        while not bench_workers("slow_crash.a0") and bench.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        assert bench.poll() is None, f"the bench ended first: {bench.communicate()[1][-3000:]}"
        cluster.stdin.write("swap\n")
        cluster.stdin.flush()
        second = cluster.stdout.readline().split()[1]
        _, stderr = bench.communicate(timeout=300)
    finally:
        cluster.stdin.close()
        cluster.wait(timeout=120)
    assert bench.returncode == 0, stderr[-3000:]
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(rows) == 1 and rows[0]["status"] == "crashed", (rows[0]["reason"], stderr[-2000:])
    assert rows[0]["node"].endswith("/" + second[:8]), (rows[0]["node"], first, second)      # finished on the new node
    assert "slow_crash#0: lost (" in stderr and "running it again in 10 s (1 of 3)" in stderr, stderr[-3000:]
