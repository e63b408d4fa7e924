"""Toolchain backends by name, for every command that takes `--backend`:

  sim          the CPU emulation of AscendC (default; runs anywhere with clang++ or g++)
  cann         CANN's real compiler and an Ascend NPU through torch_npu (build, run, time)
  cann-syntax  compile-check against an installed CANN's headers (no NPU needed; nothing runs)

Each backend module is imported only when asked for, so `--help` and the sim never import CANN code."""
from __future__ import annotations

from typing import Any

from kernelwright.errors import ConfigError
from kernelwright.tools.toolchain import Toolchain

BACKENDS = {
    "sim": "the CPU emulation of AscendC",
    "cann": "CANN's compiler and an Ascend NPU via torch_npu",
    "cann-syntax": "compile check against CANN's installed headers (no NPU)",
}


class UnknownBackend(ConfigError):
    pass


def backend_help() -> str:
    return "; ".join(f"{name}: {what}" for name, what in BACKENDS.items())


def get_toolchain(name: str, **opts: Any) -> Toolchain:
    """A toolchain by backend name. Options each backend does not know are dropped (`msopgen` only
    means something to `cann`), so commands can pass what they have."""
    if name == "sim":
        from kernelwright.tools.sim.toolchain import SimToolchain
        return SimToolchain(soc=opts.get("soc"))
    if name == "cann":
        from kernelwright.tools.cann.toolchain import CannToolchain
        keep = {k: v for k, v in opts.items() if k in ("soc", "install", "msopgen", "flow", "cmake", "device",
                                                         "worker_command", "jobs") and v is not None}
        return CannToolchain(**keep)
    if name == "cann-syntax":
        from kernelwright.tools.cann.syntax import CannSyntaxToolchain
        keep = {k: v for k, v in opts.items() if k in ("soc", "install", "compiler") and v is not None}
        return CannSyntaxToolchain(**keep)
    raise UnknownBackend(f"unknown backend {name!r}; known: {', '.join(BACKENDS)}")
