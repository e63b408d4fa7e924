"""What runs on a Ray node for one try (`run_try`, the body of the Ray task): the node is prepared once
(emulation runtime, knowledge index), the try runs as the same worker process the local executor
starts, in a scratch directory on the node (or straight on shared storage), and its artifacts travel
back to the driver as one archive. NPU tries see exactly the unit Ray gave them.

Nothing here writes results: the record goes back to the driver, which alone appends it. Imported
only inside Ray workers and by the driver when it submits (Ray pickles `run_try` by reference)."""
from __future__ import annotations

import fcntl
import hashlib
import io
import json
import os
import shutil
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

from kernelwright.evals.bench.tries import TryProcess
from kernelwright.evals.bench.worker import WorkSpec
from kernelwright.knowledge.retriever import IndexRetriever
from kernelwright.tools.buildkit.cache import entry, home
from kernelwright.tools.hardware import load_soc
from kernelwright.tools.buildkit.compiler import find_compiler
from kernelwright.tools.sim.runtime_lib import RuntimeLib, ensure_runtime, runtime_key

NPU = "NPU"                            # the custom resource NPU hosts advertise (Ray also detects it)
TEXT_SUFFIXES = {".json", ".jsonl", ".log", ".txt", ".py", ".md", ".yaml", ".cpp", ".h", ".hpp", ".asc", ".cmake"}
_READY: set[tuple] = set()             # preparations this Ray worker process already saw done


def node_label() -> str:
    import ray
    ctx = ray.get_runtime_context()
    return f"{ray.util.get_node_ip_address()}/{ctx.get_node_id()[:8]}"


def try_env(npu: bool) -> dict[str, str]:
    """The try's extra environment: an NPU try sees only the unit(s) Ray assigned to this task."""
    if not npu:
        return {}
    import ray
    units = ray.get_runtime_context().get_accelerator_ids().get(NPU) or []
    return {"ASCEND_RT_VISIBLE_DEVICES": ",".join(str(u) for u in units)}


def missing_paths(job: dict[str, Any]) -> list[str]:
    """Files the try reads by path (task sources, config, replay transcript) that this node lacks."""
    spec = job["spec"]
    task = spec["task"]
    paths = [task.get(k) for k in ("source", "inputs_source", "golden", "binding")] + [spec.get("config")]
    model = spec.get("model") or ""
    if model.startswith("replay:"):
        paths.append(model.removeprefix("replay:"))
    return [p for p in paths if p and not Path(p).exists()]


def prepare_node(prep: dict[str, Any], node_id: str) -> dict[str, Any] | None:
    """Build what every try on this node reads (the emulation runtime for `sim`, the knowledge index when
    retrieval is on) once per node: the first task to get here builds under a lock in the node's
    KERNELWRIGHT_HOME, the others find the marker. Returns what was done the one time it was done."""
    key = (node_id, prep["backend"], prep["soc"], prep["retrieval"])
    if key in _READY:
        return None
    folder = home() / "bench-nodes"
    folder.mkdir(parents=True, exist_ok=True)
    marker = folder / (hashlib.sha256(repr(key).encode()).hexdigest()[:24] + ".json")
    with open(folder / "lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            if marker.exists():
                _READY.add(key)
                return None
            start, done = time.monotonic(), []
            try:
                done += _prepare(prep)
            except Exception as e:     # the tries meet the same problem and say so in their verdicts
                done.append(f"preparation failed: {type(e).__name__}: {e}"[:300])
            report = {"seconds": round(time.monotonic() - start, 2), "done": done}
            marker.write_text(json.dumps(report), encoding="utf-8")
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
    _READY.add(key)
    return report


def _prepare(prep: dict[str, Any]) -> list[str]:
    done = []
    if prep["backend"] == "sim":
        compiler, cce = find_compiler(), load_soc(prep["soc"]).cce_aicore
        cached = RuntimeLib(entry(runtime_key(compiler, cce)), compiler, cce).kernel_archive.exists()
        ensure_runtime(compiler, cce)
        done.append("emulation runtime " + ("cached" if cached else "built"))
    if prep["retrieval"]:
        r = IndexRetriever().build()
        done.append(f"knowledge index ({r.chunks} chunks, {r.added} embedded)")
    return done


def relocate(art: Path, old: str, new: str) -> None:
    """Text files of the artifacts name the node's scratch path; make them name the driver's."""
    for f in art.rglob("*"):
        if f.is_file() and not f.is_symlink() and f.suffix in TEXT_SUFFIXES and f.stat().st_size < 8 << 20:
            try:
                text = f.read_text(encoding="utf-8")
            except (UnicodeDecodeError, OSError):
                continue
            if old in text:
                f.write_text(text.replace(old, new), encoding="utf-8")


def pack(art: Path) -> bytes:
    """The try's artifact directory as a gzipped tar, without its temp directory."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz", compresslevel=3) as tar:
        tar.add(art, arcname=".", filter=lambda ti: None if ti.name == "./tmp" or ti.name.startswith("./tmp/") else ti)
    return buf.getvalue()


def run_try(job: dict[str, Any]) -> dict[str, Any]:
    """The Ray task of one try. `job`: spec (a WorkSpec dump whose `out` is the driver's artifact
    directory), shared (that directory is on shared storage), timeout_s, npu, prep."""
    import ray
    node = node_label()
    missing = missing_paths(job)
    if missing:
        return {"node": node, "unfit": f"node {node} lacks {', '.join(missing)} (every node needs the suite, "
                                       "config and transcripts at the driver's paths)"}
    prepared = prepare_node(job["prep"], ray.get_runtime_context().get_node_id())
    driver_art = job["spec"]["out"]
    scratch = None if job["shared"] else Path(tempfile.mkdtemp(prefix="kw-try-"))
    try:
        art = Path(driver_art) if scratch is None else scratch / Path(driver_art).name
        spec = WorkSpec.model_validate({**job["spec"], "out": str(art)})
        record = TryProcess(spec, try_env(job["npu"])).wait(job["timeout_s"])
        record = record.model_copy(update={"node": node})
        archive = None
        if scratch is not None:
            relocate(art, str(art), driver_art)
            record = record.model_validate_json(record.model_dump_json().replace(json.dumps(str(art))[1:-1],
                                                                                 json.dumps(driver_art)[1:-1]))
            archive = pack(art)
        return {"node": node, "record": record.model_dump(), "archive": archive, "prepared": prepared}
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)


def unpack(archive: bytes, dest: Path) -> None:
    """On the driver: the try's artifacts into its artifact directory (replacing an older try's)."""
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
        tar.extractall(dest, filter="data")
    os.utime(dest)
