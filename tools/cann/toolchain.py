"""CannToolchain: the `cann` backend of the Toolchain seam: CANN's real compiler and an Ascend NPU
through torch_npu. Builds are process-local (a content-addressed directory per build under
$KERNELWRIGHT_HOME/cann; nothing is installed globally, so builds run in parallel); runs go to a
worker subprocess that owns one NPU; `time()` measures with NPU events against the PyTorch
reference. msopgen projects build only in the opt-in compatibility mode (`msopgen=True`)."""
from __future__ import annotations

import shutil
from pathlib import Path

from kernelwright.tools.buildkit import cache
from kernelwright.tools.buildkit.cache import load_cached
from kernelwright.tools.cann import cmake_gen
from kernelwright.tools.cann.build_launch import LaunchBuild
from kernelwright.tools.cann.build_opp import OppBuild
from kernelwright.tools.cann.client import NpuWorker
from kernelwright.tools.cann.cmake_gen import UnsupportedSoc, npu_arch
from kernelwright.tools.cann.detect import CannInstall, detect_cann
from kernelwright.tools.cann.devices import npu_smi_chips, torch_npu_state
from kernelwright.tools.cann.env import EnvError, cann_env, opp_env
from kernelwright.tools.cann.run import run_case, time_case
from kernelwright.tools.cann.steps import UNCONTAINED
from kernelwright.tools.dtypes import KERNEL_DTYPES
from kernelwright.tools.hardware import SocProfile, load_soc
from kernelwright.tools.project import KernelProject
from kernelwright.tools.timing import ReferenceSpec, TimingConfig, TimingResult, flush_bytes
from kernelwright.tools.toolchain import BuildResult, Capabilities, Case, Diagnostic, RunResult, Toolchain

GENERATOR_VERSION = "cann-3"     # bump when generated launchers, CMake projects or the cached BuildResult change
NO_CANN = ("no CANN toolkit found (looked at ASCEND_HOME_PATH, ASCEND_TOOLKIT_HOME, ASCEND_CANN_PACKAGE_PATH and "
           "/usr/local/Ascend/{ascend-toolkit/latest,cann})")
MSOPGEN_OPT_IN = ("msopgen operator projects build on the `cann` backend only in the opt-in compatibility mode "
                  "(`--msopgen`, CannToolchain(msopgen=True)): it builds a custom operator package and installs it into "
                  "a private directory of the build; or run it on `--backend sim`")


class _NotCached(Exception):
    def __init__(self, result: BuildResult):
        super().__init__(result.status)
        self.result = result


def environment_error(project: str, message: str, hint: str | None = None, toolchain: str = "cann") -> BuildResult:
    return BuildResult(toolchain=toolchain, status="environment_error", project=project,
                       diagnostics=[Diagnostic(stage="build", category="other", message=message, hint=hint)])


def resolve_soc(soc: str | None, device: int = 0) -> SocProfile:
    """The SoC to build for: the one asked for, else the visible NPU's (npu-smi), else the default profile."""
    if soc:
        return load_soc(soc)
    chips = npu_smi_chips(timeout_s=10)[0]
    found = next((c.soc for c in chips if c.logical_id == device and c.soc), None)
    return load_soc(found)


class CannToolchain(Toolchain):
    name = "cann"
    capabilities = Capabilities(dtypes=KERNEL_DTYPES)    # the task's own shapes, on the device
    uncontained = UNCONTAINED

    def __init__(self, soc: str | None = None, *, install: CannInstall | None = None, msopgen: bool = False,
                 flow: str | None = None, cmake: str | None = None, device: int = 0,
                 worker_command: list[str] | None = None, jobs: int | None = None):
        self.soc = resolve_soc(soc, device)
        self.install = install
        self.msopgen, self.flow, self.cmake, self.device = msopgen, flow, cmake, device
        self.worker_command, self.jobs = worker_command, jobs
        self._workers: dict[str, NpuWorker] = {}

    # ---- environment ----
    def environment(self) -> tuple[CannInstall, dict[str, str]]:
        inst = self.install or detect_cann()
        if inst is None:
            raise EnvError(NO_CANN)
        return inst, cann_env(inst)

    def _tools(self, inst: CannInstall, env: dict[str, str], project: KernelProject) -> tuple[str, str]:
        choice = inst.package_flow if project.kind == "msopgen" else inst.launch_flow
        flow = (self.flow if project.kind != "msopgen" else None) or choice.name
        if flow is None:
            raise EnvError(f"{inst.root}: {choice.why}: not a complete toolkit")
        cmake = self.cmake or shutil.which("cmake", path=env.get("PATH"))
        if not cmake:
            raise EnvError("cmake not found on PATH (the kernel-launch build is a CMake project); install cmake >= 3.16")
        if not shutil.which("make", path=env.get("PATH")):
            raise EnvError(f"make not found on PATH: the CANN builds use CMake's {cmake_gen.GENERATOR!r} generator "
                           "(8.1's ascendc_library reads files only it writes); install make")
        return flow, cmake

    # ---- build ----
    def build(self, project: KernelProject, *, soc: str | None = None) -> BuildResult:
        profile = load_soc(soc) if soc else self.soc
        if project.kind == "msopgen" and not self.msopgen:
            return environment_error(project.name, MSOPGEN_OPT_IN)
        try:
            inst, env = self.environment()
            flow, cmake = self._tools(inst, env, project)
            arch = npu_arch(profile, project.cann.npu_arch)
        except (EnvError, UnsupportedSoc) as e:
            return environment_error(project.name, str(e), "`kernelwright doctor` shows what was found")
        key = self._key(inst, flow, profile, arch, project)
        cached = load_cached(cache.entry(key, "cann"))
        if cached:
            return cached
        with cache.locked(key, "cann"):
            cached = load_cached(cache.entry(key, "cann"))
            if cached:
                return cached
            try:
                with cache.building(key, "cann") as tmp:
                    # absolute: CMake reads relative paths against its own directories, and the package
                    # installer refuses a relative --install-path (KERNELWRIGHT_HOME may be relative)
                    tmp, final = tmp.resolve(), cache.entry(key, "cann").resolve()
                    if project.kind == "msopgen":
                        builder = OppBuild(inst, env, project, profile, tmp, final, cmake=cmake, flow=flow)
                    else:
                        builder = LaunchBuild(inst, env, project, profile, tmp, final, flow=flow, arch=arch, cmake=cmake,
                                              jobs=self.jobs)
                    result = builder.run()
                    if result.status == "environment_error" or builder.steps.timed_out:
                        raise _NotCached(result)       # the machine may be fixed, or less loaded: nothing is kept
                    (tmp / "result.json").write_text(result.model_dump_json(indent=1))
            except _NotCached as e:
                return e.result
        return result

    def _key(self, inst: CannInstall, flow: str, soc: SocProfile, arch: str, project: KernelProject) -> str:
        parts = [GENERATOR_VERSION, str(inst.root), inst.version or "", flow, soc.name, arch, project.kind, project.name,
                 project.cann.model_dump_json()]
        for rel in sorted(project.files):
            parts += [rel, project.files[rel]]
        return "build-" + cache.digest(parts)

    # ---- run ----
    def worker(self, build: BuildResult) -> NpuWorker:
        vendor = build.artifacts.get("opp_vendor_dir", "")
        if vendor not in self._workers:
            inst, env = self.environment()
            if vendor:
                env = opp_env(env, Path(vendor))
            self._workers[vendor] = NpuWorker(self.device, env, command=self.worker_command)
        return self._workers[vendor]

    def run(self, build: BuildResult, case: Case) -> RunResult:
        try:
            worker = self.worker(build)
        except EnvError as e:
            return RunResult(toolchain="cann", status="host_error", detail=str(e),
                             diagnostics=[Diagnostic(stage="run", rule="npu.unavailable", message=str(e))])
        return run_case(worker, build, case)

    def time(self, build: BuildResult, case: Case, *, reference: ReferenceSpec | None = None,
             config: TimingConfig | None = None, seed: int = 0) -> TimingResult:
        try:
            worker = self.worker(build)
        except EnvError as e:
            return TimingResult(toolchain="cann", status="host_error", detail=str(e))
        return time_case(worker, build, case, config=config or TimingConfig(), flush_bytes=flush_bytes(self.soc.l2_bytes),
                         reference=reference, seed=seed)

    def runtime_problem(self) -> str | None:
        """Why kernels cannot run here (None when an NPU and torch_npu look usable)."""
        state = torch_npu_state(probe=False)
        return None if state.usable else state.detail

    def close(self) -> None:
        for w in self._workers.values():
            w.close()
        self._workers.clear()

    @staticmethod
    def clear_cache() -> None:
        shutil.rmtree(cache.cache_root("cann"), ignore_errors=True)
