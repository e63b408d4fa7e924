"""The Ray executor, driver side: each try is a Ray task (`ray_node.run_try`) asking for CPUs and memory
(emulation) or one unit of the `NPU` resource (the `cann` backend). A try lost with its Ray worker
or node is submitted again up to `retries` times, then recorded as an `infrastructure` failure,
never as a kernel verdict. Artifacts come back as archives into the driver's runs directory (or are
already on shared storage). Ray is imported here only, when this executor is chosen."""
from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass, field
from typing import Any

from kernelwright.agent.config import load_config
from kernelwright.evals.bench.options import BenchError, BenchOptions
from kernelwright.evals.bench.ray_node import NPU, run_try, unpack
from kernelwright.evals.bench.records import TaskRecord
from kernelwright.evals.bench.tries import try_dir
from kernelwright.tools.task import Task

# Set before Ray is imported (unless the user set them): no usage reports, no metrics exporter, and no
# overriding of device variables for tasks that ask for no device.
QUIET = {"RAY_USAGE_STATS_ENABLED": "0", "RAY_enable_metrics_collection": "0", "RAY_ACCEL_ENV_VAR_OVERRIDE_ON_ZERO": "0"}
LOCAL_OBJECT_STORE = 256 << 20         # artifacts are small; a local instance need not reserve a third of RAM
# A lost try waits this long per loss before it is submitted again: a killed node still looks alive to
# Ray until its health checks fail (~15 s by default, far longer on a loaded machine), and a try sent
# there at once is lost again in no time. So a try lost with a named node also waits until Ray reports
# that node dead, for at most NODE_DEATH_WAIT_S more.
RETRY_DELAY_S = 10.0
NODE_DEATH_WAIT_S = 120.0


@dataclass
class Pending:
    task: Task
    attempt: int
    losses: list[str] = field(default_factory=list)
    due: float = 0.0                   # a lost try: when it is submitted again (time.monotonic())
    suspect: str = ""                  # a lost try: the node it was lost with (ID prefix), until Ray says it died


def _import_ray():
    for k, v in QUIET.items():
        os.environ.setdefault(k, v)
    try:
        import ray
    except ImportError:
        raise BenchError("--executor ray needs Ray: pip install 'kernelwright[ray]'") from None
    return ray


def check_reachable(address: str, timeout_s: float = 10.0) -> None:
    """A HOST:PORT address must accept a connection: Ray itself retries an address where nothing listens
    for minutes. Other forms (`auto`, `ray://...`) are left to Ray."""
    import socket
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit() or "/" in host:
        return
    try:
        socket.create_connection((host, int(port)), timeout=timeout_s).close()
    except OSError as e:
        raise BenchError(f"nothing answers at the Ray address {address} ({e.strerror or e}); start the head there "
                         "with `ray start --head --port PORT`, or leave out --address for a local Ray instance") from None


def connect(opts: BenchOptions):
    """Join the cluster at --address, or start a local instance on loopback (no dashboard)."""
    import logging
    if opts.address:
        check_reachable(opts.address)
    ray = _import_ray()
    try:
        if opts.address:
            ray.init(address=opts.address, log_to_driver=False, logging_level=logging.WARNING)
        else:
            cpus = (opts.jobs * opts.cpus) if opts.jobs else os.cpu_count()
            ray.init(address="local", num_cpus=max(1, int(cpus + 0.999)), include_dashboard=False,
                     _node_ip_address="127.0.0.1", object_store_memory=LOCAL_OBJECT_STORE, log_to_driver=False,
                     logging_level=logging.WARNING)
    except (ConnectionError, RuntimeError, ValueError) as e:
        where = f"the Ray cluster at {opts.address}" if opts.address else "a local Ray instance"
        raise BenchError(f"could not start or join {where}: {e}".splitlines()[0]
                         + " (is `ray start --head` running there, with the same Ray and Python versions?)") from None
    return ray


def request(opts: BenchOptions) -> dict[str, Any]:
    """What one try asks Ray for."""
    ask: dict[str, Any] = {"num_cpus": opts.cpus, "max_retries": 0}     # retries are ours: we count and report them
    if opts.memory_gb:
        ask["memory"] = int(opts.memory_gb * (1 << 30))
    if opts.backend == "cann":
        ask["resources"] = {NPU: 1}
    return ask


def _lost_node(e: Exception) -> str:
    """The ID prefix of the node Ray names in a loss, or ""."""
    node = re.search(r"(?:node ID|node_id)[:=]\s*([0-9a-f]{8})", str(e), re.I)
    return node.group(1).lower() if node else ""


def _loss(e: Exception) -> str:
    """One line on a lost try, with the node when Ray names it."""
    text, node = str(e), _lost_node(e)
    ip = re.search(r"(?:IP address|node IP)[:=]?\s*([0-9.]+)", text, re.I)
    where = f" on {ip.group(1) if ip else '?'}/{node}" if node else ""
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return f"{type(e).__name__}{where}: {first[:240]}"


class RayExecutor:
    def __init__(self, opts: BenchOptions, note):
        self.opts, self.note = opts, note
        self.prep = {"backend": opts.backend, "soc": opts.soc, "retrieval": _retrieval(opts)}
        self.ask = request(opts)
        self.pending: dict[Any, Pending] = {}
        self.delayed: list[Pending] = []        # lost tries waiting to be submitted again
        self._slots: int | None = opts.jobs
        self._checked = 0.0
        start = time.monotonic()
        self.ray = connect(opts)
        self.remote = self.ray.remote(run_try).options(**self.ask)
        try:
            self._check_capacity(force=True)
        except BenchError:
            self.ray.shutdown()
            raise
        alive = sum(n.get("Alive", False) for n in self.ray.nodes())
        self.note(f"ray: {alive} node(s), {self._describe_resources()}; each try asks for {self._describe_ask()} "
                  f"(ready in {time.monotonic() - start:.1f} s)")

    # -- capacity ------------------------------------------------------------------------------------
    def _describe_resources(self) -> str:
        res = self.ray.cluster_resources()
        parts = [f"{res.get('CPU', 0):g} CPU", f"{res.get('memory', 0) / (1 << 30):.1f} GiB"]
        if res.get(NPU):
            parts.append(f"{res[NPU]:g} {NPU}")
        return ", ".join(parts)

    def _describe_ask(self) -> str:
        parts = [f"{self.opts.cpus:g} CPU"]
        if self.opts.memory_gb:
            parts.append(f"{self.opts.memory_gb:g} GiB")
        if NPU in self.ask.get("resources", {}):
            parts.append(f"1 {NPU}")
        return ", ".join(parts)

    def _check_capacity(self, force: bool = False) -> None:
        """How many tries fit on the cluster at once (when --jobs does not say); refuses a cluster on
        which no try could ever run."""
        if not force and time.monotonic() - self._checked < 5.0:
            return
        self._checked = time.monotonic()
        res = self.ray.cluster_resources()
        fits = [res.get("CPU", 0) / self.opts.cpus]
        if "memory" in self.ask:
            fits.append(res.get("memory", 0) / self.ask["memory"])
        if NPU in self.ask.get("resources", {}):
            fits.append(res.get(NPU, 0))
        capacity = int(min(fits))
        if capacity < 1 and force:
            raise BenchError(f"no try fits on the Ray cluster ({self._describe_resources()}; each try asks for "
                             f"{self._describe_ask()}): start nodes that advertise it (NPU hosts: "
                             f"`ray start --resources '{{\"{NPU}\": 8}}'`), or lower bench.cpus / bench.memory_gb")
        if self.opts.jobs is None:
            self._slots = max(1, capacity)

    def room(self) -> int:
        self._check_capacity()
        return (self._slots or 1) - len(self.pending) - len(self.delayed)

    def busy(self) -> bool:
        return bool(self.pending or self.delayed)

    # -- tries ---------------------------------------------------------------------------------------
    def submit(self, task: Task, attempt: int, losses: list[str] | None = None) -> None:
        art = try_dir(self.opts.runs_root, task, attempt)
        job = {"spec": self.opts.work_spec(task, attempt, art).model_dump(), "shared": self.opts.artifacts is not None,
               "timeout_s": self.opts.timeout_s, "npu": NPU in self.ask.get("resources", {}), "prep": self.prep}
        self.pending[self.remote.remote(job)] = Pending(task, attempt, list(losses or []))

    def wait(self, timeout: float) -> list[TaskRecord]:
        now = time.monotonic()
        for p in [p for p in self.delayed if self._due(p, now)]:
            self.delayed.remove(p)
            self.submit(p.task, p.attempt, p.losses)
        refs = list(self.pending)
        if not refs:
            time.sleep(min(timeout, max(1.0, min((p.due for p in self.delayed), default=now) - now)))   # 1 s: a node to die
            return []
        ready, _ = self.ray.wait(refs, num_returns=1, timeout=timeout)
        if ready:
            ready, _ = self.ray.wait(refs, num_returns=len(refs), timeout=0)
        out = []
        for ref in ready:
            p = self.pending.pop(ref)
            record = self._settle(ref, p)
            if record is not None:
                out.append(record)
        return out

    def _settle(self, ref, p: Pending) -> TaskRecord | None:
        """The try's record; None when it was lost and will be submitted again."""
        exceptions = self.ray.exceptions
        try:
            result = self.ray.get(ref)
        except exceptions.RayTaskError as e:        # our code on the node raised: a bug, recorded like the worker's
            return self._record(p, "error", f"the Ray task failed: {str(e)[-1500:]}")
        except exceptions.RayError as e:            # the worker or node died, memory ran out, ...
            p.suspect = _lost_node(e)
            return self._lost(p, _loss(e))
        if "unfit" in result:
            return self._lost(p, result["unfit"])
        if result.get("prepared"):
            r = result["prepared"]
            self.note(f"node {result['node']}: prepared in {r['seconds']:.1f} s ({', '.join(r['done']) or 'nothing to do'})")
        if result.get("archive") is not None:
            unpack(result["archive"], try_dir(self.opts.runs_root, p.task, p.attempt))
        return TaskRecord.model_validate(result["record"])

    def _lost(self, p: Pending, why: str) -> TaskRecord | None:
        p.losses.append(why)
        label = f"{p.task.name}#{p.attempt}"
        if len(p.losses) <= self.opts.retries:
            delay = RETRY_DELAY_S * len(p.losses)
            self.note(f"{label}: lost ({why}); running it again in {delay:g} s ({len(p.losses)} of {self.opts.retries})")
            p.due = time.monotonic() + delay
            self.delayed.append(p)
            return None
        history = "\n".join(f"{i + 1}. {w}" for i, w in enumerate(p.losses))
        return self._record(p, "infrastructure", f"lost {len(p.losses)} time(s) with its Ray worker or node "
                                                 f"(not a kernel verdict; a rerun tries it again):\n{history}")

    def _due(self, p: Pending, now: float) -> bool:
        """A lost try goes again once its delay is over and Ray no longer lists its node as alive."""
        if now < p.due:
            return False
        if p.suspect and now < p.due + NODE_DEATH_WAIT_S:
            alive = {n.get("NodeID", "")[:8].lower() for n in self.ray.nodes() if n.get("Alive")}
            if p.suspect in alive:
                return False
        p.suspect = ""
        return True

    def _record(self, p: Pending, status: str, reason: str) -> TaskRecord:
        t = p.task
        return TaskRecord(task=t.name, attempt=p.attempt, category=t.category, level=t.level, status=status,
                          reason=reason[:2000], model=self.opts.model_for(t) or "builtin", backend=self.opts.backend,
                          artifacts=str(try_dir(self.opts.runs_root, t, p.attempt)))

    def close(self) -> None:
        """Cancel what is in flight (not recorded: rerun next time) and leave the cluster."""
        for ref in list(self.pending):
            try:
                self.ray.cancel(ref, force=True)
            except Exception:          # already finished or its node is gone: nothing to stop
                pass
        self.pending.clear()
        self.delayed.clear()
        self.ray.shutdown()


def _retrieval(opts: BenchOptions) -> bool:
    """Whether the tries read the knowledge index: the config says, else on when a model writes."""
    enabled = load_config(opts.config).retriever.enabled
    return enabled if enabled is not None else (opts.model or "builtin") != "builtin"
