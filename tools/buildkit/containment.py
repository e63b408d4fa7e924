"""How a sandboxed step is contained: a bubblewrap command line for a `View`, and whether this machine
allows it (probed once per process).

Mechanism (why bubblewrap): the kernel's namespaces do the containment, and bubblewrap is the small,
widely packaged tool that sets them up without a daemon, unprivileged or as root. Each step gets new
mount, PID, network, IPC and UTS namespaces: a root filesystem holding only /usr (and the /bin, /lib
links), a few loader files from /etc, a private /dev, /proc and size-limited /tmp, and the paths the
step names (read-only unless they are its own directory); only a loopback network; and a PID
namespace whose init dies with the step, which kills every process the step left behind. The process
count is RLIMIT_NPROC, set inside the sandbox with `prlimit` (as are the other limits). Root is exempt from RLIMIT_NPROC, so a
root caller's step first drops to a uid of its own (`setpriv`, no capabilities, no new privileges),
which also keeps it from writing anything it does not own.

Where bubblewrap is missing or the machine forbids namespaces, steps still get a scrubbed environment,
rlimits and a kill of their process group, and `status()` says what is missing (doctor, verdicts).
"""
from __future__ import annotations

import hashlib
import os
import shutil
import stat
import subprocess
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from kernelwright.tools.buildkit import cache

ENV_SWITCH = "KERNELWRIGHT_SANDBOX"          # "off" runs steps with limits only (still reported as degraded)
TMP_BYTES = 256 << 20                        # the private /tmp of a step (memory-backed)
_SYSTEM_LINKS = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
_ETC = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives")
_UID_BASE = 0x60000000                       # far above any uid a system hands out
STAGE_BYTES = 64 << 20                       # the largest private tree copied for a root caller's step


@dataclass(frozen=True)
class View:
    """What a contained step sees. Everything not named here is absent (not merely read-only)."""

    writable: tuple[str, ...] = ()           # the step's own directories
    readable: tuple[str, ...] = ()           # executables, headers, the runtime, the task
    env: tuple[tuple[str, str], ...] = ()    # the step's environment beyond PATH, HOME, TMPDIR and LANG
    python: bool = False                     # the interpreter, its packages and kernelwright (read-only)


@dataclass(frozen=True)
class Status:
    mode: str                                # "bubblewrap" | "limits-only"
    detail: str
    missing: list[str] = field(default_factory=list)

    @property
    def contained(self) -> bool:
        return self.mode == "bubblewrap"

    def note(self) -> str:
        """One line for a verdict when steps were not fully contained ("" when they were)."""
        if self.contained:
            return ""
        return (f"sandbox degraded ({self.detail}): untrusted code ran with limits and a scrubbed environment "
                f"only; not contained: {', '.join(self.missing)}")


def _is_root() -> bool:
    return os.geteuid() == 0


def _python_paths() -> list[str]:
    paths = {sys.prefix, sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix,
             str(cache.PACKAGE_ROOT), str(Path(sys.executable).parent)}
    paths |= {p for p in sys.path if p and os.path.exists(p)}
    return sorted(paths)


def _covered(path: str) -> bool:
    """Under a directory every sandbox already has."""
    return path == "/usr" or path.startswith("/usr/") or path in ("/", "/tmp", "/proc", "/dev")


def _spellings(path: str) -> list[str]:
    """The path as given and, when a symlink leads elsewhere, where it really is (both get mounted, so
    either spelling works inside)."""
    given, real = os.path.abspath(path), os.path.realpath(path)
    return [given] if given == real else [given, real]


def _private(path: str, limit: int = 5000) -> bool:
    """Something in `path` that other users cannot read (a root caller's step runs as a uid of its own)."""
    seen = 0
    for root, dirs, files in os.walk(path) if os.path.isdir(path) else [(os.path.dirname(path), [], [path])]:
        for name in [root, *(os.path.join(root, d) for d in dirs), *(os.path.join(root, f) for f in files)]:
            try:
                mode = os.lstat(name).st_mode
            except OSError:
                continue
            need = 0o005 if stat.S_ISDIR(mode) else 0o004
            if not stat.S_ISLNK(mode) and mode & need != need:
                return True
            seen += 1
            if seen > limit:
                return False
    return False


def _size(path: str) -> int:
    if not os.path.isdir(path):
        return os.path.getsize(path)
    return sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(path) for f in fs
               if not os.path.islink(os.path.join(r, f)))


def _stage(path: str, staging: Path) -> str:
    """A copy of a private path that the step's uid can read (bound where the original is); a large one
    is bound as it is (what the step cannot read, it cannot read)."""
    if _size(path) > STAGE_BYTES:
        return path
    dest = staging / str(len(list(staging.iterdir())))
    if os.path.isdir(path):
        shutil.copytree(path, dest, symlinks=True)
    else:
        shutil.copy2(path, dest)
    for root, dirs, files in os.walk(dest):
        os.chmod(root, 0o755)
        for f in files:
            p = os.path.join(root, f)
            if not os.path.islink(p):
                os.chmod(p, 0o444 | (os.stat(p).st_mode & 0o111))
    return str(dest)


def _mounts(view: View, staging: Path | None) -> list[str]:
    args = ["--ro-bind", "/usr", "/usr"]
    for name in _SYSTEM_LINKS:
        p = Path("/") / name
        if p.is_symlink():
            args += ["--symlink", os.readlink(p), str(p)]
        elif p.is_dir():
            args += ["--ro-bind", str(p), str(p)]
    for name in _ETC:
        args += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    args += ["--proc", "/proc", "--dev", "/dev", "--perms", "1777", "--size", str(TMP_BYTES), "--tmpfs", "/tmp"]
    readable = list(view.readable) + (_python_paths() if view.python else [])
    entries: dict[str, tuple[str, str]] = {}   # where inside -> (how, from where)
    for kind, paths in (("--ro-bind", readable), ("--bind", view.writable)):
        for p in paths:
            spellings = [s for s in _spellings(p) if not _covered(s) and os.path.exists(s)]
            source = p
            if spellings and staging is not None and kind == "--ro-bind" and p in view.readable and _private(p):
                source = _stage(p, staging)
            for spelled in spellings:
                entries[spelled] = (kind, source)   # a writable path wins over the same path read-only
    # the build cache stays out of sight even inside a readable tree (a cache kept in the checkout); what
    # a step needs from it (the runtime, its own build) is deeper, so it is mounted back on top
    for hidden in _spellings(str(cache.home())):
        if os.path.isdir(hidden) and hidden not in entries and any(hidden.startswith(p + "/") for p in entries):
            entries[hidden] = ("--tmpfs", "")
    # the directories leading to each path, searchable by the step's uid (bubblewrap makes them 0700)
    parents = {str(a) for p in entries for a in Path(p).parents if str(a) != "/" and not _covered(str(a))}
    # shallower first, so a writable directory inside a read-only one is mounted over it; a parent directory
    # after any mount above it (a hidden cache's tmpfs would otherwise cover it, and bubblewrap would make
    # the mount point of what lies deeper 0700)
    steps = [(p.count("/"), p, 0) for p in entries] + [(d.count("/"), d, 1) for d in parents]
    for _, p, is_dir in sorted(steps):
        if is_dir:
            args += ["--perms", "0755", "--dir", p]
            continue
        kind, source = entries[p]
        args += ["--perms", "0755", kind, p] if kind == "--tmpfs" else [kind, source, p]
    return args


def sandbox_uid(view: View) -> int:
    """A root caller's steps run as a uid of their own, stable per directory (the steps of one build
    share it, so each can read and replace what the previous one wrote)."""
    key = view.writable[0] if view.writable else "-"
    return _UID_BASE + int(hashlib.sha256(os.path.realpath(key).encode()).hexdigest()[:6], 16)


def hand_over(view: View) -> None:
    """Give the step's own directories to its uid (root callers only; a no-op otherwise)."""
    if not _is_root():
        return
    uid = sandbox_uid(view)
    for top in view.writable:
        for root, dirs, files in os.walk(top):
            for path in [root] + [os.path.join(root, name) for name in files + dirs]:
                try:
                    os.lchown(path, uid, uid)
                except FileNotFoundError:
                    # another step of the same build removed its private temp dir meanwhile: nothing to hand over
                    pass


def bwrap_argv(cmd: list[str], view: View, cwd: str, rlimits: list[str], status_fd: int | None,
               staging: Path | None = None, as_init: bool = False) -> list[str]:
    """`rlimits`: `prlimit` options, applied inside (after the uid switch, so none binds bubblewrap
    itself and no Python runs between fork and exec); `staging` (root callers): where to copy named
    read-only paths that the step's uid could not read; `as_init`: `cmd` is the sandbox's PID 1 and
    drops privileges for what it starts itself (the executor)."""
    userns = [] if _is_root() else ["--unshare-user", "--disable-userns"]
    argv = [shutil.which("bwrap") or "bwrap", *userns, "--unshare-ipc", "--unshare-pid", "--unshare-net",
            "--unshare-uts", "--unshare-cgroup-try", "--die-with-parent", "--new-session", "--hostname", "sandbox"]
    if as_init:
        argv.append("--as-pid-1")
    if status_fd is not None:
        argv += ["--json-status-fd", str(status_fd)]
    argv += _mounts(view, staging if _is_root() else None) + ["--chdir", os.path.abspath(cwd), "--"]
    if _is_root() and not as_init:
        uid = str(sandbox_uid(view))
        argv += ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--inh-caps=-all",
                 "--bounding-set=-all", "--no-new-privs", "--"]
    if rlimits:
        argv += ["prlimit", *rlimits, "--"]
    return argv + cmd


@lru_cache(maxsize=1)
def status() -> Status:
    """Whether steps can be contained here: bubblewrap present and a trial sandbox starts."""
    all_missing = ["filesystem view", "network", "process count", "kill of the whole process tree"]
    if os.environ.get(ENV_SWITCH, "").lower() in ("off", "0", "no", "none"):
        return Status("limits-only", f"turned off by {ENV_SWITCH}={os.environ[ENV_SWITCH]}", all_missing)
    tools = ["bwrap", "prlimit"] + (["setpriv"] if _is_root() else [])
    absent = [t for t in tools if shutil.which(t) is None]
    if absent:
        return Status("limits-only", f"{', '.join(absent)} not installed (apt-get install bubblewrap util-linux)",
                      all_missing)
    probe = Path(os.environ.get("TMPDIR", "/tmp"))
    try:
        r = subprocess.run(bwrap_argv(["true"], View(), str(probe), ["--nproc=64:64"], None), capture_output=True, text=True,
                           timeout=30, env={"PATH": "/usr/bin:/bin"})
    except (OSError, subprocess.TimeoutExpired) as e:
        return Status("limits-only", f"bubblewrap did not start: {e}", all_missing)
    if r.returncode != 0:
        why = (r.stderr.strip().splitlines() or [f"exit {r.returncode}"])[-1]
        return Status("limits-only", f"bubblewrap cannot create namespaces here ({why}); on Ubuntu 24.04 allow "
                      "unprivileged user namespaces for bwrap (AppArmor) or run as root", all_missing)
    who = "root, steps drop to their own uid" if _is_root() else "unprivileged user namespaces"
    return Status("bubblewrap", f"{shutil.which('bwrap')} ({who})")
