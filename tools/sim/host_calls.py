"""State across calls on the host side. A process that serves an operator keeps its statics from one
call to the next, so a case is also tiled (host/host_main.cpp) after the previous case this process
tiled with the same host executable, and twice in a row; a TilingFunc whose result changes with that
history keeps state across calls (`host.state_across_calls`)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

# what a tiling call gives the kernel; equal calls agree on all of it
_RESULT_FIELDS = ("status", "block_dim", "tiling_key", "schedule_mode", "need_atomic", "tiling_data", "workspace_sizes",
                  "output_shapes", "output_dtypes")
_EARLIER: dict[str, tuple[list[str], dict[str, bytes]]] = {}   # host executable -> last tiled case (manifest, data files)


def earlier_manifests(host_exe: str, run_dir: Path) -> list[str]:
    """The previous case this process tiled with `host_exe`, written into `run_dir` (its data files too)."""
    if host_exe not in _EARLIER:
        return []
    lines, data = _EARLIER[host_exe]
    fixed = []
    for i, text in enumerate(lines):
        fields = text.split("\t")
        if fields[0] == "input" and len(fields) >= 6 and fields[5] in data:
            path = run_dir / f"earlier_in_{i}.bin"
            path.write_bytes(data[fields[5]])
            fields[5] = str(path)
        fixed.append("\t".join(fields))
    path = run_dir / "earlier_manifest.txt"
    path.write_text("\n".join(fixed) + "\n")
    return [str(path)]


def remember(host_exe: str, lines: list[str]) -> None:
    """Keep a case that tiled cleanly as the next case's earlier call (input data files are read now:
    the run directory goes away)."""
    data = {}
    for text in lines:
        fields = text.split("\t")
        if fields[0] == "input" and len(fields) >= 6 and fields[5] != "-" and Path(fields[5]).is_file():
            data[fields[5]] = Path(fields[5]).read_bytes()
    _EARLIER[host_exe] = (list(lines), data)


def _excerpt(text: str, start: int) -> str:
    return f"{'...' if start else ''}{text[start:start + 48]}{'...' if len(text) > start + 48 else ''}"


def _differences(a: dict[str, Any], b: dict[str, Any]) -> str:
    diffs = []
    for k in _RESULT_FIELDS:
        if a.get(k) != b.get(k):
            va, vb = (str(x.get(k, "")) for x in (a, b))
            first = next((i for i, (x, y) in enumerate(zip(va, vb)) if x != y), min(len(va), len(vb)))
            start = first - first % 16 if first >= 48 else 0
            where = f" from byte {first // 2}" if k == "tiling_data" else ""
            diffs.append(f"{k}{where} {_excerpt(va, start)} then {_excerpt(vb, start)}")
    return "; ".join(diffs)


def stale_finding(data: dict[str, Any], had_earlier: bool) -> str | None:
    """The message for a TilingFunc whose result depends on earlier calls in the process, or None."""
    calls = data.get("calls")
    if not isinstance(calls, dict):
        return None
    if calls.get("kind") == "crash":
        return (f"TilingFunc ran cleanly as the process's first call but failed ({calls.get('detail')}) when the same "
                "process served the case again after earlier calls: it keeps state across calls")
    again, after = calls.get("again") or {}, calls.get("after_earlier") or {}
    diff = _differences(after, again)
    if diff:
        return ("TilingFunc gives a different result when called a second time with the same inputs in one process "
                f"({diff}): a static or global it changes carries over to the next call, as it does on a host")
    diff = _differences(data, after) if had_earlier else ""
    if diff:
        return ("TilingFunc gives this case a different result after the process tiled an earlier case with other "
                f"shapes ({diff}): a static it fills on the first call keeps that call's values")
    return None
