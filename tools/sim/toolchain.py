"""SimToolchain: the `sim` backend of the Toolchain seam (CPU emulation of AscendC)."""
from __future__ import annotations

from pathlib import Path

from kernelwright.tools.buildkit import cache
from kernelwright.tools.buildkit.cache import load_cached
from kernelwright.tools.buildkit.executor import POOL
from kernelwright.tools.hardware import load_soc
from kernelwright.tools.project import KernelProject
from kernelwright.tools.sim.build import Builder, build_key
from kernelwright.tools.buildkit.compiler import NoCompiler, find_compiler
from kernelwright.tools.sim.run import SIM_DTYPES, Runner
from kernelwright.tools.sim.runtime_lib import RuntimeBuildError, ensure_runtime
from kernelwright.tools.toolchain import EMULATION_BUDGET, BuildResult, Capabilities, Case, Diagnostic, RunResult, Toolchain


class SimToolchain(Toolchain):
    name = "sim"
    capabilities = Capabilities(dtypes=SIM_DTYPES, shrink_budget=EMULATION_BUDGET)

    def __init__(self, soc: str | None = None, race_check: bool = True, keep_run_dirs: bool = False):
        self.soc = load_soc(soc)
        self.race_check = race_check
        self.keep_run_dirs = keep_run_dirs

    def build(self, project: KernelProject, *, soc: str | None = None) -> BuildResult:
        profile = load_soc(soc) if soc else self.soc
        try:
            rt = ensure_runtime(find_compiler(), profile.cce_aicore)
        except (NoCompiler, RuntimeBuildError) as e:
            return BuildResult(toolchain="sim", status="environment_error", project=project.name,
                               diagnostics=[Diagnostic(stage="build", category="other", message=str(e))])
        key = build_key(rt, project)
        cached = load_cached(cache.entry(key))
        if cached:
            return cached
        with cache.locked(key):
            cached = load_cached(cache.entry(key))
            if cached:
                return cached
            with cache.building(key) as tmp:
                builder = Builder(rt, project, tmp, cache.entry(key))
                result = builder.run()
                if builder.infrastructure:   # a timeout or a sandbox failure is no verdict on the kernel
                    result.artifacts.clear()
                    raise cache.Discard
                (tmp / "result.json").write_text(result.model_dump_json(indent=1))
        return result

    def run(self, build: BuildResult, case: Case) -> RunResult:
        soc = load_soc(case.soc) if case.soc else self.soc
        entry = cache.sealed_root(Path(build.artifacts["src"])) if build.ok and "src" in build.artifacts else None
        # kept run directories must outlive the sandbox: those runs get a sandbox per step
        executor = POOL.get((str(entry),)) if entry and not self.keep_run_dirs else None
        return Runner(build, case, soc, race_check=self.race_check, keep_dir=self.keep_run_dirs, executor=executor).run()

    @staticmethod
    def clear_cache() -> None:
        cache.remove(cache.cache_root())
