"""Read what a kernel run left behind (per-block JSON-lines reports, the launch summary) and
turn it into diagnostics located in the user's source, counters and a status."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kernelwright.tools.buildkit.diagnostics import PathMapper
from kernelwright.tools.sim.symbolize import Frame, first_user_frame, symbolize
from kernelwright.tools.toolchain import Diagnostic

# Findings made after the fact (a queue destroyed with a tensor still taken): the recorded call
# (the AllocTensor of the leaked buffer) is where the user's mistake is, not where it was noticed.
_AT_IS_CAUSE = {"queue.leak", "ub.capacity", "local.capacity", "scalar.div_by_zero"}  # reported at the call that caused it
_SIGNALS = {4: "SIGILL", 6: "SIGABRT", 7: "SIGBUS", 8: "SIGFPE", 9: "SIGKILL", 11: "SIGSEGV", 24: "SIGXCPU", 25: "SIGXFSZ"}


def _records(run_dir: Path) -> list[dict[str, Any]]:
    recs = []
    for path in sorted(run_dir.glob("block_*.jsonl"), key=lambda p: int(p.stem.split("_")[1])) + [run_dir / "parent.jsonl"]:
        if not path.exists():
            continue
        for text in path.read_text(errors="replace").splitlines():
            if not text.strip():
                continue
            try:
                recs.append(json.loads(text))
            except json.JSONDecodeError:
                continue  # a record cut short by a crash
    return recs


def _later_call_findings(run_dir: Path) -> list[dict[str, Any]]:
    """Errors of the case's call after a call with other inputs (runtime/carry.cpp), which starts with the UB/L1
    that call left; its warnings and counters repeat the first call's."""
    return [dict(r, later_call=True) for r in _records(run_dir / "again")
            if r.get("type") in ("crash", "hang") or (r.get("type") == "diag" and r.get("severity") != "warning")]


def _in_modules(records: list[dict[str, Any]], build_dir: Path) -> dict[str, list[Frame]]:
    """Addresses inside a library of the build (a MIX kernel's cube-core copy), symbolized against it: a fault's
    own instruction exactly, the others as return addresses. System libraries are left alone."""
    groups: dict[tuple[str, bool], dict[str, str]] = {}     # (library, exact) -> offset -> address
    for r in records:
        for m in r.get("modules", []):
            if m.get("module") and Path(m["module"]).parent == build_dir and Path(m["module"]).is_file():
                groups.setdefault((m["module"], m["addr"] == r.get("pc")), {})[m["offset"]] = m["addr"]
    found: dict[str, list[Frame]] = {}
    for (module, exact), offsets in sorted(groups.items(), key=lambda g: g[0][1]):   # exact lookups win
        for offset, frames in symbolize(Path(module), list(offsets), return_addresses=not exact).items():
            if frames:
                found[offsets[offset]] = frames
    return found


class RunReport:
    def __init__(self, run_dir: Path, exe: Path, mapper: PathMapper):
        self.records = _records(run_dir) + _later_call_findings(run_dir)
        launch = run_dir / "launch.json"
        self.launch = json.loads(launch.read_text()) if launch.exists() else None
        addrs = [a for r in self.records for a in (r.get("frames", [])[:24] + r.get("at", []))]
        self.frames = symbolize(exe, addrs)
        # a fault's pc is the instruction itself, not a return address: look it up exactly
        self.frames.update(symbolize(exe, [r["pc"] for r in self.records if r.get("pc")], return_addresses=False))
        self.frames.update(_in_modules(self.records, exe.parent))
        self.mapper = mapper

    def _locate(self, addrs: list[str]) -> Frame | None:
        chains = [self.frames.get(a, []) for a in addrs]
        return first_user_frame(chains, lambda f: self.mapper.user_path(f) is not None)

    def _where_waiting(self, r: dict[str, Any]) -> dict[str, Any]:
        """A parent-side SyncAll mismatch has no frames: use the SyncAll call the first waiting block is stuck in."""
        waiting = str(r.get("values", {}).get("waiting", "")).split(",")[0]
        syncs = [s for s in self.records if s.get("type") == "sync" and str(s.get("block")) == waiting]
        return dict(r, frames=syncs[-1]["frames"]) if syncs else r

    def diagnostics(self) -> list[Diagnostic]:
        merged: dict[tuple[Any, ...], Diagnostic] = {}
        for r in self.records:
            kind = r.get("type")
            if kind not in ("diag", "crash", "hang"):
                continue
            if r.get("rule") == "syncall.mismatch":
                r = self._where_waiting(r)
            d = self._diag(r)
            key = (d.rule, d.file, d.line, d.severity)
            if key in merged:
                merged[key].values.setdefault("blocks", [merged[key].block]).append(d.block)
                continue
            merged[key] = d
        return list(merged.values())

    def _diag(self, r: dict[str, Any]) -> Diagnostic:
        frame = self._locate(([r["pc"]] if r.get("pc") else []) + r.get("frames", []))
        where = dict(file=self.mapper.user_path(frame.file), line=frame.line, column=frame.column or None) if frame else {}
        d = self._diag_at(r, frame, where)
        if r.get("later_call"):
            d.notes.append("when the kernel ran on this case again after a call with other inputs, starting with the "
                           "UB/L1 contents that call left")
        return d

    def _diag_at(self, r: dict[str, Any], frame: Frame | None, where: dict[str, Any]) -> Diagnostic:
        block = r.get("block")
        if r["type"] == "crash":
            sig = int(r.get("signal", 0))
            name = _SIGNALS.get(sig, f"signal {sig}")
            return Diagnostic(stage="run", rule="kernel.crash", category="runtime_rule", block=block, symbol=name,
                              message=f"the kernel crashed with {name} in block {block}",
                              hint="a raw pointer access outside the buffers, a null GlobalTensor or a division by zero; "
                                   "on the NPU this is an AI Core exception (507015/507035)", **where)
        if r["type"] == "hang":
            return Diagnostic(stage="run", rule="kernel.timeout", category="runtime_rule", block=block,
                              message=f"block {block} did not finish in time and was stopped here",
                              hint="an endless loop (a loop counter that never reaches its bound, often from a tiling field "
                                   "left at 0 or a wrong tail formula); on the NPU this is an AI Core timeout (507014)",
                              **where)
        notes = []
        if r.get("at"):
            at = self._locate(r["at"])
            if at and r.get("rule") in _AT_IS_CAUSE:
                if frame:
                    notes.append(f"detected at {self.mapper.user_path(frame.file)}:{frame.line}")
                where = dict(file=self.mapper.user_path(at.file), line=at.line, column=at.column or None)
            elif at:
                notes.append(f"related call at {self.mapper.user_path(at.file)}:{at.line}")
        return Diagnostic(stage="run", severity="warning" if r.get("severity") == "warning" else "error",
                          rule=r.get("rule"), category="runtime_rule", message=r.get("message", ""),
                          hint=r.get("hint") or None, values=r.get("values", {}), block=block,
                          symbol=r.get("api") or None, notes=notes, **where)

    def counters(self) -> list[dict[str, Any]]:
        return [r for r in self.records if r.get("type") == "counters"]
