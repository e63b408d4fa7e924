"""CannSyntaxToolchain: the `cann-syntax` backend. On a machine with CANN's headers but no NPU it
compile-checks a project against the installed headers the way the CPU-debug build compiles:
g++ (or clang++ with -Wno-c++11-narrowing), `-std=c++17 -fsyntax-only`, the twin's defines
(`__CCE_AICORE__`, `__DAV_<arch>__`, `ASCENDC_CPU_DEBUG`, `__CCE_KT_TEST__`, `_GLIBCXX_USE_CXX11_ABI=0`;
ascendc-api.md §14.2) plus `__NPU_ARCH__` (CANN 9's headers branch on nothing else; asc-devkit
CMakeASCInformation.cmake defines it in CPU mode) and the install's include dirs (CANN 8's twin, or
CANN 9's `asc/include` + `asc/impl` set). msopgen projects: the kernel once per dtype column with a
tiling struct generated from op_host's tiling header and DTYPE_<NAME> macros (as the sim build
does), op_host as the toolkit's own op-build step compiles it: `-std=c++11 -I<CANN>/include`, plus
`-I op_kernel` on CANN 8 (msopgen template func.cmake `opbuild()`; CANN 9's
fwk_modules/util/compile_ascendc_all_ops_so.py has no op_kernel dir). Nothing runs."""
from __future__ import annotations

import os
import shutil
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from kernelwright.tools.buildkit import cache
from kernelwright.tools.buildkit.diagnostics import dedupe
from kernelwright.tools.buildkit.sources import drop_launches, dtype_variants, variant_key
from kernelwright.tools.cann.build_launch import prepare_sources
from kernelwright.tools.cann.cmake_gen import UnsupportedSoc, npu_arch, npu_arch_number
from kernelwright.tools.cann.detect import CannInstall, cpu_debug_include_dirs, detect_cann
from kernelwright.tools.cann.env import EnvError, cann_env
from kernelwright.tools.cann.steps import CONFIGURE_LIMITS, UNCONTAINED, CannPathMapper, StagedBuild, Steps
from kernelwright.tools.cann.tiling_text import kernel_tiling_header
from kernelwright.tools.cann.toolchain import NO_CANN, environment_error
from kernelwright.tools.cpp_text import include_path
from kernelwright.tools.hardware import SocProfile, load_soc
from kernelwright.tools.project import KernelProject
from kernelwright.tools.toolchain import BuildResult, Capabilities, Case, Diagnostic, RunResult, Toolchain

NO_HEADERS = "no AscendC headers (kernel_operator.h) under {root}'s CPU-debug include dirs ({dirs})"


def twin_defines(soc: SocProfile, arch: str) -> list[str]:
    """The CPU-debug defines for `soc` built for `arch` (the --npu-arch value, e.g. dav-2201)."""
    dav = soc.npu_arch.removeprefix("dav-").upper()
    number = npu_arch_number(arch)
    return [f"-D__CCE_AICORE__={soc.cce_aicore}", f"-D__DAV_{dav}__", *([f"-D__NPU_ARCH__={number}"] if number else []),
            "-D_GLIBCXX_USE_CXX11_ABI=0", "-D__CCE_KT_TEST__=1", "-DASCENDC_CPU_DEBUG=1", "-DASCENDC_DEBUG=1"]


def host_check(inst: CannInstall, src: Path) -> tuple[list[str], list[Path]]:
    """Flags and include dirs of the op-build step that compiles op_host on this install."""
    flags = ["-std=c++11", "-D_GLIBCXX_USE_CXX11_ABI=0"]
    cann9 = inst.package_flow.name == "npu_op" or (inst.package_flow.name is None and inst.version_tuple >= (9, 0))
    return flags, [inst.root / "include"] + ([] if cann9 else [src / "op_kernel"])


def pick_compiler(wanted: str | None = None) -> str | None:
    for name in ([wanted] if wanted else [os.environ.get("KERNELWRIGHT_CANN_CXX") or "", "g++", "clang++"]):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


class CannSyntaxToolchain(Toolchain):
    name = "cann-syntax"
    capabilities = Capabilities(runs=False)
    uncontained = UNCONTAINED

    def __init__(self, soc: str | None = None, *, install: CannInstall | None = None, compiler: str | None = None):
        self.soc = load_soc(soc)
        self.install, self.compiler = install, compiler

    def build(self, project: KernelProject, *, soc: str | None = None) -> BuildResult:
        profile = load_soc(soc) if soc else self.soc
        inst = self.install or detect_cann()
        if inst is None:
            return environment_error(project.name, NO_CANN, "`source <CANN>/set_env.sh`, or use --backend sim", self.name)
        try:
            env = cann_env(inst)
        except EnvError as e:
            return environment_error(project.name, str(e), toolchain=self.name)
        cxx = pick_compiler(self.compiler)
        if cxx is None:
            return environment_error(project.name, "no g++ or clang++ on PATH (the CPU-twin check compiles with one)",
                                      toolchain=self.name)
        try:
            arch = npu_arch(profile, project.cann.npu_arch)
        except UnsupportedSoc as e:
            return environment_error(project.name, str(e), toolchain=self.name)
        kernel_dirs = cpu_debug_include_dirs(inst)
        if not any((d / "kernel_operator.h").is_file() for d in kernel_dirs):
            dirs = ", ".join(map(str, kernel_dirs)) or "none exist"
            return environment_error(project.name, NO_HEADERS.format(root=inst.root, dirs=dirs), toolchain=self.name)
        out = Path(tempfile.mkdtemp(prefix="syntax-", dir=cache.cache_root("cann"))).resolve()
        try:
            return _Check(inst, env, project, profile, out, cxx, kernel_dirs, arch).run()
        finally:
            shutil.rmtree(out, ignore_errors=True)

    def run(self, build: BuildResult, case: Case) -> RunResult:
        message = self.runtime_problem()
        return RunResult(toolchain=self.name, status="host_error", detail=message,
                         diagnostics=[Diagnostic(stage="run", rule="backend.no_run", message=message)])

    def runtime_problem(self) -> str:
        return "the cann-syntax backend only compile-checks; run kernels on `--backend cann` (NPU) or `sim`"


class _Check(StagedBuild):
    def __init__(self, inst: CannInstall, env: dict[str, str], project: KernelProject, soc: SocProfile, out: Path,
                 cxx: str, kernel_dirs: list[Path], arch: str):
        self.inst, self.project, self.soc, self.out, self.final, self.cxx = inst, project, soc, out, out, cxx
        self.src = out / "src"
        self.kernel_dirs, self.arch, self.defines = kernel_dirs, arch, twin_defines(soc, arch)
        # LC_ALL=C: g++ quotes names with ASCII quotes, as the diagnostics parser (and clang) expect
        self.steps = Steps(CannPathMapper(self.src, inst.root, out), dict(env, LC_ALL="C"))

    def flags(self, std: str) -> list[str]:
        flags = [std, "-fsyntax-only", "-fno-diagnostics-color"]
        if "clang" in Path(self.cxx).name:
            return flags + ["-Wno-c++11-narrowing", "-ferror-limit=30", "-fno-caret-diagnostics"]
        return flags + ["-fmax-errors=30", "-fno-diagnostics-show-caret"]

    def check(self, unit: Path, what: str, extra: list[str], dirs: list[Path], std: str = "-std=c++17") -> bool:
        lang = ["-x", "c++"] if unit.suffix == ".asc" else []
        cmd = [self.cxx, *self.flags(std), *extra, *lang, *[f"-I{d}" for d in dirs], str(unit)]
        return self.steps.run(cmd, self.out, what=what, limits=CONFIGURE_LIMITS)

    def run(self) -> BuildResult:
        start = time.monotonic()
        result = BuildResult(toolchain="cann-syntax", status="ok", project=self.project.name,
                             compiler=f"{Path(self.cxx).name} -fsyntax-only against CANN {self.inst.version or '?'} "
                                      f"headers ({self.soc.name}, {self.arch}, CPU-debug defines)")
        texts = prepare_sources(self.project.files, self.src)
        for rel, text in texts.items():      # `<<<>>>` launches are host code g++ cannot parse
            if "<<<" in text:
                (self.src / rel).write_text(drop_launches(text))
        if self.project.kind == "msopgen":
            self._msopgen(result)
        else:
            result.kernels = self.project.kernel_names()
            for rel in self.project.kernel_sources():
                unit = self.src / rel
                self.check(unit, f"the compile check of {rel}", self.defines, [unit.parent, self.src, *self.kernel_dirs])
        self.steps.diagnostics = dedupe(self.steps.diagnostics)   # dtype variants repeat findings
        return self.finish(result, start)

    def _msopgen(self, result: BuildResult) -> None:
        p = self.project
        spec = p.op_spec()
        (std, *host_flags), host_dirs = host_check(self.inst, self.src)
        for rel in p.host_sources():
            self.check(self.src / rel, f"the compile check of {rel}", host_flags, host_dirs, std=std)
        kernels = p.kernel_sources()
        if not kernels:
            self.steps.fail(f"no kernel source: expected op_kernel/{p.snake_name}.cpp", environment=False,
                            category="syntax_structure")
            return
        result.kernels = [p.snake_name]
        tiling_text = "\n".join(t for r, t in p.files.items() if r.startswith("op_host/"))
        (self.out / "kw_tiling.h").write_text(kernel_tiling_header(p.name, tiling_text))
        variants = [{}]
        if spec is not None:
            result.op = spec.model_copy(update={"op_type": p.name})
            variants = dtype_variants(result.op) or [{}]
        result.variants = [variant_key(v) for v in variants]

        def one(i: int) -> bool:
            unit = self.out / f"kernel_v{i}.cpp"
            defines = "".join(f"#define {k} {v}\n" for k, v in variants[i].items())
            unit.write_text(f'// generated by kernelwright\n#include "{include_path(self.out / "kw_tiling.h")}"\n'
                            f'{defines}'
                            f'#include "{include_path((self.src / kernels[0]).resolve())}"\n')
            return self.check(unit, f"the compile check of {kernels[0]} ({variant_key(variants[i]) or 'no dtypes'})",
                              self.defines, [self.src / "op_kernel", self.src, *self.kernel_dirs])

        with ThreadPoolExecutor(max_workers=2) as pool:
            list(pool.map(one, range(len(variants))))
