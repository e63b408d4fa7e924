"""Keep an installed-but-unusable torch_npu from breaking `import torch`.

torch auto-loads torch_npu through an entry point, and transformers imports it whenever the
package is present; without CANN's libraries both imports die. On a host without CANN we hide
the package; on a real Ascend host (after `source set_env.sh`) nothing changes.
"""
import ctypes
import importlib.util
import os
import sys


def torch_npu_installed() -> bool:
    return importlib.util.find_spec("torch_npu") is not None if "torch_npu" not in sys.modules else sys.modules["torch_npu"] is not None


def cann_runtime_loadable() -> bool:
    try:
        ctypes.CDLL("libhccl.so")
        return True
    except OSError:
        return False


if "torch_npu" not in sys.modules and importlib.util.find_spec("torch_npu") is not None and not cann_runtime_loadable():
    os.environ.setdefault("TORCH_DEVICE_BACKEND_AUTOLOAD", "0")
    sys.modules["torch_npu"] = None  # type: ignore[assignment]
