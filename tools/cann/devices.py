"""Which NPUs this machine has and which SoC they are: `npu-smi info` parsed as text (no Python
import of anything CANN-specific), and torch_npu's view only when it is usable (guarded by
`kernelwright._npu_guard`, so an installed-but-broken torch_npu never breaks anything).

`npu-smi info` prints two rows per chip: `| <npu> <name> | <health> | ...` and
`| <chip> [<phy-id>] | <bus-id> | ...`. Names are SoC names without the `Ascend` prefix
(`910B2`, `910B2C`, `310P3`); Atlas A3 boards print `Ascend910` with two chips per NPU."""
from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass

from kernelwright._npu_guard import cann_runtime_loadable, torch_npu_installed
from kernelwright.tools.hardware import UnknownSoc, load_soc

_HEAD = re.compile(r"^\|\s*(?P<npu>\d+)\s+(?P<name>[A-Za-z0-9][\w.\-]*)\s*\|\s*(?P<health>[\w\-]+)\s*\|")
_CHIP = re.compile(r"^\|\s*(?P<chip>\d+)(?:\s+(?P<phy>\d+|NA))?\s*\|\s*(?P<bus>[0-9A-Fa-f]{4}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f]|NA)\s*\|")


@dataclass(frozen=True)
class NpuChip:
    logical_id: int          # the device index the runtime uses (ASCEND_RT_VISIBLE_DEVICES, torch "npu:<i>")
    npu: int                 # npu-smi's NPU id
    chip: int
    name: str                # as npu-smi prints it (e.g. "910B2", "Ascend910")
    health: str
    bus_id: str = ""
    soc: str | None = None   # our SoC profile name, when the name identifies one


def soc_for_name(name: str, chips_per_npu: int = 1) -> str | None:
    """A SoC profile for an `npu-smi`/runtime name: `910B2` / `Ascend910B2` -> Ascend910B2, `910B2C` -> Ascend910B2
    (same core counts), `Ascend910_9392` -> itself, `Ascend910` with two chips per NPU -> Ascend910_9392 (Atlas A3)."""
    raw = name.strip()
    base = raw if raw.lower().startswith("ascend") else f"Ascend{raw}"
    tries = [base, re.sub(r"[A-Z]$", "", base) if re.search(r"\d[A-Z]$", base) else None]
    if base == "Ascend910" and chips_per_npu >= 2:
        tries.append("Ascend910_9392")
    for t in tries:
        if not t:
            continue
        try:
            return load_soc(t).name
        except UnknownSoc:
            continue
    return None


def parse_npu_smi(text: str) -> list[NpuChip]:
    """`npu-smi info` output -> one entry per chip, in the order the runtime numbers them; the process
    table at the end (`| NPU  Chip | Process id | ...`) is ignored."""
    rows: list[tuple[int, str, str, int, str]] = []
    pending: tuple[int, str, str] | None = None
    for line in text.splitlines():
        line = line.strip()
        if "Process id" in line or "Process name" in line:
            break
        head = _HEAD.match(line)
        if head and not _CHIP.match(line):
            pending = (int(head.group("npu")), head.group("name"), head.group("health"))
            continue
        chip = _CHIP.match(line)
        if chip and pending is not None:
            rows.append((pending[0], pending[1], pending[2], int(chip.group("chip")), chip.group("bus")))
            pending = None
    per_npu: dict[int, int] = {}
    for npu, *_ in rows:
        per_npu[npu] = per_npu.get(npu, 0) + 1
    return [NpuChip(logical_id=i, npu=npu, chip=chip, name=name, health=health, bus_id=bus,
                    soc=soc_for_name(name, per_npu[npu]))
            for i, (npu, name, health, chip, bus) in enumerate(rows)]


def npu_smi_chips(timeout_s: float = 20.0) -> tuple[list[NpuChip], str]:
    """The chips `npu-smi info` lists, and a note on how that went (empty when it ran fine)."""
    exe = shutil.which("npu-smi")
    if exe is None:
        return [], "npu-smi not found (the Ascend driver is not installed, or not on PATH)"
    try:
        r = subprocess.run([exe, "info"], capture_output=True, text=True, timeout=timeout_s)
    except (OSError, subprocess.TimeoutExpired) as e:
        return [], f"npu-smi info failed: {e}"
    chips = parse_npu_smi(r.stdout)
    if r.returncode != 0 or not chips:
        return chips, f"npu-smi info exited with {r.returncode}: {(r.stderr or r.stdout).strip()[-300:]}"
    return chips, ""


@dataclass(frozen=True)
class TorchNpuState:
    installed: bool
    usable: bool
    devices: int = 0
    soc: str | None = None       # the runtime's SoC name (torch.npu.get_device_name), e.g. "Ascend910B2"
    version: str | None = None
    detail: str = ""


def torch_npu_state(probe: bool = True) -> TorchNpuState:
    """Whether torch_npu can be used here; with `probe`, import it (only when the CANN runtime is
    loadable) and ask for the device count and the SoC name."""
    if not torch_npu_installed():
        return TorchNpuState(False, False, detail="torch_npu is not installed (optional extra: pip install 'kernelwright[npu]')")
    if not cann_runtime_loadable():
        return TorchNpuState(True, False, detail="torch_npu is installed but CANN's runtime libraries (libhccl.so) are not "
                                                 "loadable; `source <CANN>/set_env.sh` first (kept hidden so `import torch` works)")
    if not probe:
        return TorchNpuState(True, True, detail="not probed")
    try:
        import torch
        import torch_npu

        n = int(torch.npu.device_count())
        name = str(torch.npu.get_device_name(0)) if n else None
        return TorchNpuState(True, True, devices=n, soc=name, version=getattr(torch_npu, "__version__", None))
    except Exception as e:  # an installed-but-broken stack is a finding, not a crash
        return TorchNpuState(True, False, detail=f"import torch_npu failed: {type(e).__name__}: {e}")
