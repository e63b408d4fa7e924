"""The environment CANN's tools and the NPU worker run in.

A CANN install is configured by sourcing its `set_env.sh` (PATH to bisheng, LD_LIBRARY_PATH to
the runtime, ASCEND_HOME_PATH, CMAKE_PREFIX_PATH for find_package(ASC), ASCEND_OPP_PATH, ...).
We source it once in a throw-away bash and keep the resulting variables, so builds work from a
shell that did not source it, and add the Ascend driver's libraries (`driver/lib64/{common,driver}`),
which 8.1's `ascend-toolkit/set_env.sh` does not put on LD_LIBRARY_PATH. A custom operator package
is never installed globally: the worker of a build that needs one gets ASCEND_CUSTOM_OPP_PATH and
LD_LIBRARY_PATH pointing into that build's private directory.

The builds compile and load generated code (op_host libraries run inside CANN's packaging tools; the
worker loads kernels and runs their tiling), so what they inherit from the caller is a list, never the
whole environment: the toolkit's, driver's and framework's variables, search paths, locale and HOME,
and the names (or `PREFIX*`) in KERNELWRIGHT_CANN_ENV. API keys and tokens stay behind (issue 13)."""
from __future__ import annotations

import os
import subprocess
from functools import lru_cache
from pathlib import Path

from kernelwright.tools.cann.detect import CannInstall, driver_lib_dirs

PASS_ENV_SWITCH = "KERNELWRIGHT_CANN_ENV"        # more names (or PREFIX*) the steps may inherit, comma-separated
_PASS_NAMES = {"PATH", "LD_LIBRARY_PATH", "LD_PRELOAD", "PYTHONPATH", "PYTHONHOME", "HOME", "USER", "LOGNAME", "LANG",
               "TMPDIR", "CC", "CXX", "KERNELWRIGHT_NPU_DEVICE"}
_PASS_PREFIXES = ("ASCEND_", "ASC_", "CMAKE_", "TOOLCHAIN_", "OPP_", "TBE_", "ACL_", "HCCL_", "NPU_", "TORCH_",
                  "PYTORCH_", "OMP_", "KMP_", "MKL_", "GOMP_", "LC_")
# Shell bookkeeping that changes in any bash; everything else set_env.sh sets or changes is kept.
_SHELL = {"SHLVL", "_", "PWD", "OLDPWD", "BASH_EXECUTION_STRING", "BASHOPTS", "SHELLOPTS", "BASH_VERSINFO"}


class EnvError(RuntimeError):
    pass


@lru_cache(maxsize=8)
def _sourced(set_env: str) -> tuple[tuple[str, str], ...]:
    script = 'source "$1" >/dev/null 2>&1 || exit 3; env -0'
    try:
        r = subprocess.run(["bash", "-c", script, "kw-source", set_env], capture_output=True, timeout=60,
                           env=dict(os.environ))
    except (OSError, subprocess.TimeoutExpired) as e:
        raise EnvError(f"sourcing {set_env} failed: {e}") from None
    if r.returncode != 0:
        raise EnvError(f"sourcing {set_env} failed (bash exited with {r.returncode}); run `source {set_env}` in a shell "
                       "to see why")
    pairs = []
    for item in r.stdout.split(b"\0"):
        key, sep, value = item.decode(errors="replace").partition("=")
        if sep and key not in _SHELL and not key.startswith("BASH_FUNC_") and os.environ.get(key) != value:
            pairs.append((key, value))
    return tuple(sorted(pairs))


def inherited(environ: dict[str, str] | os._Environ) -> dict[str, str]:
    """What CANN's steps may take from `environ` (see the module's docstring)."""
    extra = [n.strip() for n in os.environ.get(PASS_ENV_SWITCH, "").split(",") if n.strip()]
    names = _PASS_NAMES | {n for n in extra if not n.endswith("*")}
    prefixes = _PASS_PREFIXES + tuple(n[:-1] for n in extra if n.endswith("*") and len(n) > 1)
    return {k: v for k, v in environ.items() if k in names or k.startswith(prefixes)}


def cann_env(inst: CannInstall, base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment for CANN's tools: what `base` (default: ours) may pass on, plus what the install's
    set_env.sh sets; without a set_env.sh, the variables that point at the install."""
    env = inherited(os.environ if base is None else base)
    if inst.set_env is not None:
        env.update(dict(_sourced(str(inst.set_env))))
    root = str(inst.root)
    env.setdefault("ASCEND_HOME_PATH", root)
    env.setdefault("ASCEND_TOOLKIT_HOME", root)
    env["ASCEND_CANN_PACKAGE_PATH"] = env.get("ASCEND_CANN_PACKAGE_PATH") or root
    if inst.asc_config_dir is not None:
        env.setdefault("ASC_DIR", str(inst.asc_config_dir))
        env["CMAKE_PREFIX_PATH"] = prepend(str(inst.asc_config_dir), env.get("CMAKE_PREFIX_PATH"))
    for rel in ("compiler/ccec_compiler/bin", "bin"):
        if (inst.root / rel).is_dir():
            env["PATH"] = append(str(inst.root / rel), env.get("PATH"))
    for d in driver_lib_dirs(inst):      # torch_npu loads libascend_hal.so from here; 8.1's set_env.sh omits it
        env["LD_LIBRARY_PATH"] = append(str(d), env.get("LD_LIBRARY_PATH"))
    return env


def append(path: str, current: str | None) -> str:
    """`current` with `path` at the end, unless it is already there."""
    parts = [p for p in (current or "").split(os.pathsep) if p]
    return os.pathsep.join(parts if path in parts else [*parts, path])


def prepend(path: str, current: str | None) -> str:
    parts = [p for p in (current or "").split(os.pathsep) if p and p != path]
    return os.pathsep.join([path, *parts])


def opp_env(env: dict[str, str], vendor_dir: Path) -> dict[str, str]:
    """`env` with a private custom operator package in front (its op_api library first on LD_LIBRARY_PATH)."""
    out = dict(env)
    out["ASCEND_CUSTOM_OPP_PATH"] = prepend(str(vendor_dir), env.get("ASCEND_CUSTOM_OPP_PATH"))
    out["LD_LIBRARY_PATH"] = prepend(str(vendor_dir / "op_api" / "lib"), env.get("LD_LIBRARY_PATH"))
    return out


def worker_env(env: dict[str, str], device: int) -> dict[str, str]:
    """The NPU worker's environment: it sees exactly one device (as `npu:0`)."""
    out = dict(env, ASCEND_RT_VISIBLE_DEVICES=str(device), PYTHONUNBUFFERED="1")
    out.setdefault("OMP_NUM_THREADS", "4")
    return out
