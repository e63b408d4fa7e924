"""Minimal build-and-run helper for the emulation's op tests (stand-in until the Python build
driver lands): compiles the runtime once per content hash, compiles and links a kernel, writes
a manifest, runs it and reads the outputs and the block reports."""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
SIM = REPO / "tools" / "sim"
RUNTIME_UNITS = sorted(p.stem for p in (SIM / "runtime").glob("*.cpp"))  # every unit the runtime library has
SOC_910B2 = "soc\tAscend910B2\t220\t1\t24\t48\t196608\t524288\t65536\t65536\t131072\t1024\t2048"
CXX = os.environ.get("KW_TEST_CXX", "clang++-16")
FLAGS = ["-std=c++17", "-O1", "-g", f"-I{SIM / 'include'}"]


class CompileError(Exception):
    pass


def have_compiler(name: str = CXX) -> bool:
    return shutil.which(name) is not None


def _content_hash() -> str:
    h = hashlib.sha256()
    for p in sorted(list((SIM / "runtime").glob("*")) + list((SIM / "include").rglob("*.h"))):
        h.update(str(p).encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


def runtime_objects() -> list[Path]:
    """Runtime objects for the current sources, built once and cached by content hash."""
    out = Path(tempfile.gettempdir()) / "kw_sim_ops_rt" / f"{CXX}-{_content_hash()}"
    objs = [out / f"rt_{u}.o" for u in RUNTIME_UNITS]
    if all(o.exists() for o in objs):
        return objs
    out.mkdir(parents=True, exist_ok=True)
    procs = []
    for u, o in zip(RUNTIME_UNITS, objs):
        tmp = o.with_suffix(f".{os.getpid()}.tmp")
        cmd = [CXX, *FLAGS, f"-I{SIM / 'runtime'}", "-c", str(SIM / "runtime" / f"{u}.cpp"), "-o", str(tmp)]
        procs.append((subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True), tmp, o))
    for p, tmp, o in procs:
        _, err = p.communicate()
        if p.returncode != 0:
            raise CompileError(err)
        os.replace(tmp, o)
    return objs


def compile_check(source: str, compiler: str = CXX, extra: list[str] | None = None) -> tuple[bool, str]:
    """Syntax-only compile of a kernel source; returns (ok, diagnostics)."""
    with tempfile.TemporaryDirectory() as d:
        src = Path(d) / "k.cpp"
        src.write_text(source)
        flags = ["-std=c++17", f"-I{SIM / 'include'}", "-fsyntax-only"] + (extra or [])
        if compiler.startswith("g++"):
            flags.append("-Werror=narrowing")
        p = subprocess.run([compiler, *flags, str(src)], capture_output=True, text=True)
        return p.returncode == 0, p.stderr


def build(source: str, workdir: Path) -> Path:
    workdir = Path(workdir).resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    src = workdir / "kernel.cpp"
    src.write_text(source)
    obj = workdir / "kernel.o"
    exe = workdir / "kernel_exe"
    p = subprocess.run([CXX, *FLAGS, "-c", str(src), "-o", str(obj)], capture_output=True, text=True)
    if p.returncode != 0:
        raise CompileError(p.stderr)
    p = subprocess.run([CXX, "-no-pie", str(obj), *map(str, runtime_objects()), "-o", str(exe)], capture_output=True, text=True)
    if p.returncode != 0:
        raise CompileError(p.stderr)
    return exe


@dataclass
class Buf:
    name: str
    data: np.ndarray | None = None  # input contents (role in/inout)
    nbytes: int = 0                 # size of an output buffer
    role: str = "in"
    dtype: str = "float32"          # how to read an output back


@dataclass
class RunResult:
    status: int
    launch: dict
    outputs: dict[str, np.ndarray]
    diags: list[dict] = field(default_factory=list)
    stdout: str = ""

    def rules(self, severity: str | None = None) -> list[str]:
        return [d["rule"] for d in self.diags if severity is None or d["severity"] == severity]


def run(exe: Path, kernel: str, buffers: list[Buf], args: list[tuple[str, object]], block_dim: int = 1,
        workdir: Path | None = None) -> RunResult:
    """args: ("buffer", name) | ("int", v) | ("float", v) | ("bytes", hex)."""
    workdir = Path(workdir or exe.parent).resolve()
    out_dir = workdir / "out"
    shutil.rmtree(out_dir, ignore_errors=True)
    out_dir.mkdir(parents=True)
    lines = [SOC_910B2, f"out_dir\t{out_dir}", f"kernel\t{kernel}", f"block_dim\t{block_dim}"]
    for b in buffers:
        if b.data is not None:
            path = workdir / f"in_{b.name}.bin"
            np.ascontiguousarray(b.data).tofile(path)
            lines.append(f"buffer\t{b.name}\t{b.data.nbytes}\t{b.role}\t{path}")
        else:
            lines.append(f"buffer\t{b.name}\t{b.nbytes}\t{b.role}\t-")
    for kind, v in args:
        lines.append(f"arg\t{kind}\t{v}")
    manifest = workdir / "manifest.txt"
    manifest.write_text("\n".join(lines) + "\n")
    p = subprocess.run([str(exe), str(manifest)], capture_output=True, text=True, timeout=120)
    launch = json.loads((out_dir / "launch.json").read_text()) if (out_dir / "launch.json").exists() else {}
    outputs = {}
    for b in buffers:
        f = out_dir / f"out_{b.name}.bin"
        if f.exists():
            outputs[b.name] = np.fromfile(f, dtype=b.dtype)
    diags = []
    for f in sorted(out_dir.glob("*.jsonl")):
        for line in f.read_text().splitlines():
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                continue
            if rec.get("type") == "diag":
                diags.append(rec)
    return RunResult(launch.get("status", p.returncode), launch, outputs, diags, p.stdout + p.stderr)


def build_and_run(tmp_path: Path, source: str, kernel: str, buffers: list[Buf], args: list[tuple[str, object]],
                  block_dim: int = 1) -> RunResult:
    exe = build(source, tmp_path)
    return run(exe, kernel, buffers, args, block_dim, tmp_path)


# Queue-backed staging helpers shared by the test kernels (the real sync protocol, so the
# hazard tracker stays quiet): In<T> copies GM into a VECIN tensor, Out<T> copies a VECOUT
# tensor back to GM, Tmp<T> is a VECCALC TBuf.
PRELUDE = r"""
#include "kernel_operator.h"
using namespace AscendC;
template <typename T> struct In {
    TQue<QuePosition::VECIN, 1> q; LocalTensor<T> t;
    void load(TPipe& pipe, GM_ADDR gm, uint32_t n) {
        pipe.InitBuffer(q, 1, n * sizeof(T));
        GlobalTensor<T> g; g.SetGlobalBuffer((__gm__ T*)gm, n);
        LocalTensor<T> x = q.template AllocTensor<T>(); DataCopy(x, g, n); q.EnQue(x); t = q.template DeQue<T>();
    }
    ~In() { q.FreeTensor(t); }
};
template <typename T> struct Out {
    TQue<QuePosition::VECOUT, 1> q; LocalTensor<T> t; GlobalTensor<T> g; uint32_t n = 0;
    void init(TPipe& pipe, GM_ADDR gm, uint32_t count) {
        n = count; pipe.InitBuffer(q, 1, n * sizeof(T)); g.SetGlobalBuffer((__gm__ T*)gm, n); t = q.template AllocTensor<T>();
    }
    void store() { q.EnQue(t); LocalTensor<T> y = q.template DeQue<T>(); DataCopy(g, y, n); q.FreeTensor(y); }
};
template <typename T> struct Tmp {
    TBuf<TPosition::VECCALC> b; LocalTensor<T> t;
    void init(TPipe& pipe, uint32_t count) { pipe.InitBuffer(b, count * sizeof(T)); t = b.template Get<T>(); }
};
"""


def kernel_source(body: str) -> str:
    """Prepends the includes and the staging helpers to a kernel body (which ends with KW_EXPORT_KERNEL)."""
    return PRELUDE + body
