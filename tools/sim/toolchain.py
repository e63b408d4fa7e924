"""SimToolchain: the `sim` backend of the Toolchain seam (CPU emulation of AscendC)."""
from __future__ import annotations

import shutil

from kernelwright.tools.buildkit import cache
from kernelwright.tools.buildkit.cache import load_cached
from kernelwright.tools.hardware import load_soc
from kernelwright.tools.project import KernelProject
from kernelwright.tools.sim.build import Builder, build_key
from kernelwright.tools.sim.compiler import NoCompiler, find_compiler
from kernelwright.tools.sim.run import Runner
from kernelwright.tools.sim.runtime_lib import RuntimeBuildError, ensure_runtime
from kernelwright.tools.toolchain import BuildResult, Case, Diagnostic, RunResult


class SimToolchain:
    name = "sim"

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
                result = Builder(rt, project, tmp, cache.entry(key)).run()
                (tmp / "result.json").write_text(result.model_dump_json(indent=1))
        return result

    def run(self, build: BuildResult, case: Case) -> RunResult:
        soc = load_soc(case.soc) if case.soc else self.soc
        return Runner(build, case, soc, race_check=self.race_check, keep_dir=self.keep_run_dirs).run()

    @staticmethod
    def clear_cache() -> None:
        shutil.rmtree(cache.cache_root(), ignore_errors=True)
