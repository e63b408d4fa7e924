"""The emulator's own compiled parts, built once per compiler and SoC family and cached: the
kernel runtime (runner, scheduler, checks), the host runtime (tiling runner) and a
precompiled kernel_operator.h so each kernel compiles in a fraction of a second."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from kernelwright.tools.buildkit import cache, sandbox
from kernelwright.tools.buildkit.sandbox import View
from kernelwright.tools.buildkit.compiler import Compiler

SIM_DIR = Path(__file__).resolve().parent
INCLUDE_DIR = SIM_DIR / "include"
KERNEL_RT_DIR = SIM_DIR / "runtime"
HOST_RT_DIR = SIM_DIR / "host"


class RuntimeBuildError(RuntimeError):
    """Our own runtime failed to compile: a kernelwright bug or a broken compiler install."""


def arch_defines(cce_aicore: int) -> list[str]:
    core = {220: ["-D__DAV_C220_VEC__", "-D__DAV_C220__"], 200: ["-D__DAV_M200__", "-D__DAV_M200_VEC__"],
            300: ["-D__DAV_M300__"], 100: ["-D__DAV_C100__"]}.get(cce_aicore, [])
    return [f"-D__CCE_AICORE__={cce_aicore}", "-DKERNELWRIGHT_SIM=1"] + core


# what a kernel unit is compiled for: the vector core (the default), the cube core alone (a cube-only kernel,
# tools/sim/mix.py), and the cube core's copy of a MIX kernel (a shared library: position-independent)
CORES = {"aiv": [], "aic": ["-DKW_CORE_TYPE=AscendC::AIC", "-DKW_AIC_ONLY=1"],
         "aic_pic": ["-fPIC", "-DKW_CORE_TYPE=AscendC::AIC"]}


def _pch_suffix(core: str) -> str:
    return "" if core == "aiv" else f"_{core}"


@dataclass(frozen=True)
class RuntimeLib:
    root: Path
    compiler: Compiler
    cce_aicore: int

    @property
    def kernel_archive(self) -> Path:
        return self.root / "libkw_kernel_rt.a"

    @property
    def host_archive(self) -> Path:
        return self.root / "libkw_host_rt.a"

    @property
    def pch_dir(self) -> Path:
        return self.root / "pch"

    def kernel_flags(self, core: str = "aiv") -> list[str]:
        """A kernel unit's flags for `core` (CORES); clang has a precompiled header for each."""
        flags = self.compiler.common_flags() + arch_defines(self.cce_aicore) + [f"-I{INCLUDE_DIR}"] + CORES[core]
        if self.compiler.family == "clang":
            return flags + ["-include-pch", str(self.pch_dir / f"kw_pch{_pch_suffix(core)}.h.pch")]
        if core != "aiv":   # gcc: the one precompiled header is the AIV's
            return flags + ["-include", "kernel_operator.h"]   # what the precompiled header holds
        return flags + [f"-I{self.pch_dir}", "-include", "kw_pch.h"]

    def host_flags(self) -> list[str]:
        flags = host_unit_flags(self.compiler)
        if self.compiler.family == "clang":
            return flags + ["-include-pch", str(self.pch_dir / "kw_host_pch.h.pch")]
        return flags + [f"-I{self.pch_dir}", "-include", "kw_host_pch.h"]


def _sources() -> list[Path]:
    files = [p for d in (INCLUDE_DIR, KERNEL_RT_DIR, HOST_RT_DIR) for p in d.rglob("*") if p.is_file()]
    return [p for p in files if p.suffix in {".h", ".hpp", ".cpp"}]


def pch_flags(compiler: Compiler) -> list[str]:
    """Flags for making a precompiled header only. clang instantiates the templates the headers use
    (std::map<DataType, ...>, the runtime's vectors) once, in the PCH, instead of in every unit: about a
    fifth of a kernel or op_host unit's compile time. What only the unit uses is instantiated there, as before."""
    return ["-fpch-instantiate-templates"] if compiler.family == "clang" else []


def host_unit_flags(compiler: Compiler) -> list[str]:
    """op_host units (tiling, OpDef) are compiled without optimisation: they run once per case, and -O1
    cost a third of their compile time. Their precompiled header is made the same way (it records the
    optimisation level). The host runtime they link against stays at -O1."""
    return [f for f in compiler.common_flags() if f != "-O1"] + ["-O0", "-DKERNELWRIGHT_SIM=1", f"-I{INCLUDE_DIR}"]


def runtime_key(compiler: Compiler, cce_aicore: int) -> str:
    # the header root is part of the key: the precompiled headers record the absolute paths they were made from
    return "rt-" + cache.digest([compiler.identity, compiler.path, str(cce_aicore), " ".join(compiler.common_flags()),
                                 " ".join(pch_flags(compiler)), " ".join(host_unit_flags(compiler)), repr(CORES),
                                 cache.tree_digest(_sources(), SIM_DIR), str(INCLUDE_DIR), *cache.install_parts()])


def compiler_view(compiler: Compiler, out: Path, readable: tuple[str, ...] = ()) -> View:
    """What a compile step sees: the compiler's installation, our headers and runtime sources, what it
    names, and its own output directory (the only writable one)."""
    install = Path(compiler.path).resolve().parents[1]   # <prefix>/bin/clang++ -> <prefix> (under /usr usually)
    return View(writable=(str(out),), readable=(str(install), str(SIM_DIR), *readable))


def _compile(compiler: Compiler, args: list[str], cwd: Path) -> sandbox.Completed:
    return sandbox.run([compiler.path, *args], cwd=cwd, limits=sandbox.Limits(wall_s=300, cpu_s=600, memory_bytes=None),
                       view=compiler_view(compiler, cwd))


_verified: set[Path] = set()   # runtime entries whose seal was checked in this process (they are 20+ MB)


def ensure_runtime(compiler: Compiler, cce_aicore: int) -> RuntimeLib:
    key = runtime_key(compiler, cce_aicore)
    lib = RuntimeLib(cache.entry(key), compiler, cce_aicore)
    if _usable(lib):
        return lib
    with cache.locked(key):
        if _usable(lib):
            return lib
        with cache.building(key) as tmp:
            _build(compiler, cce_aicore, tmp)
    _verified.add(lib.root)
    return lib


def _usable(lib: RuntimeLib) -> bool:
    """Built, and unchanged since (checked once per process); a changed runtime is removed to be rebuilt."""
    if not lib.kernel_archive.exists():
        return False
    if lib.root in _verified:
        return True
    if cache.tampered(lib.root):
        cache.remove(lib.root)
        return False
    _verified.add(lib.root)
    return True


def _build(compiler: Compiler, cce: int, out: Path) -> None:
    common = compiler.common_flags()
    kflags = common + arch_defines(cce) + [f"-I{INCLUDE_DIR}", f"-I{KERNEL_RT_DIR}"]
    hflags = common + ["-DKERNELWRIGHT_SIM=1", f"-I{INCLUDE_DIR}"]
    jobs = [(kflags + ["-c", str(src), "-o", str(out / f"k_{src.stem}.o")]) for src in sorted(KERNEL_RT_DIR.glob("*.cpp"))]
    jobs += [(hflags + ["-c", str(src), "-o", str(out / f"h_{src.stem}.o")]) for src in sorted(HOST_RT_DIR.glob("*.cpp"))]
    pch = out / "pch"
    pch.mkdir()
    # clang records the header's path in the PCH, so it is built from the stable one in the repo;
    # gcc finds `kw_pch.h.gch` next to a forwarding header when a unit does `-include kw_pch.h`.
    (pch / "kw_pch.h").write_text('#include "kernel_operator.h"\n')
    if compiler.family == "clang":
        header, pch_out = INCLUDE_DIR / "kernel_operator.h", pch / "kw_pch.h.pch"
    else:
        header, pch_out = pch / "kw_pch.h", pch / "kw_pch.h.gch"
    jobs.append(common + pch_flags(compiler) + arch_defines(cce) + [f"-I{INCLUDE_DIR}", "-x", "c++-header", str(header),
                                                                  "-o", str(pch_out)])
    if compiler.family == "clang":    # the cube core's units: a PCH each (its core type and PIC are recorded in it)
        jobs += [common + pch_flags(compiler) + arch_defines(cce) + CORES[core] + [
            f"-I{INCLUDE_DIR}", "-x", "c++-header", str(header), "-o", str(pch / f"kw_pch{_pch_suffix(core)}.h.pch")]
            for core in CORES if core != "aiv"]
    (pch / "kw_host_pch.h").write_text('#include "kwhost/host_pch.h"\n')
    if compiler.family == "clang":
        header, pch_out = INCLUDE_DIR / "kwhost" / "host_pch.h", pch / "kw_host_pch.h.pch"
    else:
        header, pch_out = pch / "kw_host_pch.h", pch / "kw_host_pch.h.gch"
    jobs.append(host_unit_flags(compiler) + pch_flags(compiler) + ["-x", "c++-header", str(header), "-o", str(pch_out)])
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda a: _compile(compiler, a, out), jobs))
    failed = [r for r in results if r.returncode != 0]
    if failed:
        raise RuntimeBuildError("the emulation runtime failed to compile:\n" + "\n".join(r.stderr[-4000:] for r in failed))
    for prefix, name in (("k_", "libkw_kernel_rt.a"), ("h_", "libkw_host_rt.a")):
        objs = sorted(str(p) for p in out.glob(f"{prefix}*.o"))
        r = sandbox.run(["ar", "rcs", name, *objs], cwd=out, view=View(writable=(str(out),)))
        if r.returncode != 0:
            raise RuntimeBuildError(f"ar failed: {r.stderr}")
