"""kernelwright: writes, checks and repairs AscendC kernels for Ascend NPUs."""
from kernelwright import _env  # noqa: F401  (offline defaults before any lazy import)
from kernelwright import _npu_guard  # noqa: F401  (must run before anything imports torch)

__version__ = "0.1.0"
