"""kernelwright: writes, checks and repairs AscendC kernels for Ascend NPUs."""
from kernelwright import _env  # noqa: F401  (offline defaults before any lazy import)
from kernelwright import _npu_guard  # noqa: F401  (must run before anything imports torch)
from kernelwright._version import __version__  # noqa: F401


def __getattr__(name: str):
    # `kernelwright.generate` / `kernelwright.verify` without importing the agent (langgraph) until it is used
    if name == "generate":
        from kernelwright.agent.api import generate
        return generate
    if name == "verify":
        from kernelwright.agent.api_verify import verify
        return verify
    raise AttributeError(f"module 'kernelwright' has no attribute {name!r}")
