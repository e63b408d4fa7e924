"""The opt-in msopgen compatibility mode: export the operator as a CANN operator project in the
flow the toolkit supports (`kernelwright.tools.formats.cann`: msopgen's template on CANN 8, the
npu_op_* functions on CANN >= 9), build it with its `build.sh` into a custom operator package,
install that package into a **private** directory below the build directory (`--install-path`,
never `$ASCEND_OPP_PATH`; the installer takes absolute paths only), and build the aclnn launcher the
worker calls. The worker of such a build gets ASCEND_CUSTOM_OPP_PATH pointed at the private vendor
directory (see env.opp_env)."""
from __future__ import annotations

import time
from pathlib import Path

from kernelwright.tools.cann import cmake_gen
from kernelwright.tools.cann.aclnn_gen import UnsupportedOp, aclnn_source
from kernelwright.tools.cann.detect import CannInstall
from kernelwright.tools.cann.steps import CONFIGURE_LIMITS, CannPathMapper, StagedBuild, Steps
from kernelwright.tools.formats import cann as cann_format
from kernelwright.tools.hardware import SocProfile
from kernelwright.tools.project import KernelProject, ProjectError
from kernelwright.tools.toolchain import BuildResult

PACKAGE_HINT = {
    "msopgen": "the operator package did not build: check that `source <CANN>/set_env.sh` was run and that the toolkit "
               "has tools/op_project_templates/ascendc/customize (msopgen's project template)",
    "npu_op": "the operator package did not build: check that `source <CANN>/set_env.sh` was run (find_package(ASC) "
              "reads ASCEND_HOME_PATH) and that `kernelwright doctor` names the npu_op flow"}


class OppBuild(StagedBuild):
    def __init__(self, inst: CannInstall, env: dict[str, str], project: KernelProject, soc: SocProfile, out: Path,
                 final: Path, *, cmake: str, flow: str):
        self.inst, self.project, self.soc, self.out, self.final, self.cmake = inst, project, soc, out, final, cmake
        self.flow, self.hint = flow, PACKAGE_HINT[flow]
        self.proj_dir = out / "opp_project"
        self.opp_dir = out / "opp"
        self.steps = Steps(CannPathMapper(self.proj_dir, inst.root, out), dict(env))

    def run(self) -> BuildResult:
        start = time.monotonic()
        p = self.project
        result = BuildResult(toolchain="cann", status="ok", project=p.name, kernels=[p.snake_name],
                             compiler=f"{self.flow} operator project + bisheng (CANN {self.inst.version or 'unknown'}, "
                                      f"{self.soc.name}); custom OPP in a private directory")
        spec = p.op_spec()
        if spec is None:
            self.steps.fail(f"no operator prototype for {p.name}: neither a <op>.json nor an OpDef readable in op_host",
                            environment=False, category="api_signature",
                            hint="declare `class X : public OpDef` with Input/Output/Attr and OP_ADD(X) in op_host")
            return self.finish(result, start)
        if not p.compute_units():
            p = p.model_copy(deep=True)
            p.cann.compute_units = [self.soc.compute_unit]
        result.op = spec.model_copy(update={"op_type": p.name})
        result.variants = [",".join(f"{q.name.upper()}={q.dtypes[i] if i < len(q.dtypes) else q.dtypes[-1]}"
                                    for q in spec.inputs + spec.outputs if q.dtypes)
                           for i in range(max((len(q.dtypes) for q in spec.inputs + spec.outputs), default=0))]
        try:
            rendered = cann_format.render(p, flow=self.flow)
            source = aclnn_source(p.name, spec)
        except (ProjectError, UnsupportedOp) as e:
            self.steps.fail(str(e), environment=False, category="syntax_structure")
            return self.finish(result, start)
        for rel, text in rendered.files.items():
            (self.proj_dir / rel).parent.mkdir(parents=True, exist_ok=True)
            (self.proj_dir / rel).write_text(text)
        result.artifacts["src"] = self.final_path(self.proj_dir)
        if self._package() and self._install():
            self._launcher(source, result)
        return self.finish(result, start)

    def _package(self) -> bool:
        return self.steps.run(["bash", str(self.proj_dir / "build.sh")], self.proj_dir,
                              what="the operator package build (build.sh)", hint=self.hint)

    def _install(self) -> bool:
        runs = sorted((self.proj_dir / "build_out").glob("custom_opp_*.run"))
        if not runs:
            self.steps.fail("build.sh finished but left no build_out/custom_opp_*.run", environment=True, hint=self.hint)
            return False
        self.opp_dir.mkdir(parents=True, exist_ok=True)
        ok = self.steps.run(["bash", str(runs[0]), "--quiet", f"--install-path={self.opp_dir}"], self.out,
                            what="installing the operator package into the build's private OPP directory",
                            limits=CONFIGURE_LIMITS, environment=True)
        vendor = self.vendor_dir
        if ok and not (vendor / "op_api" / "lib" / "libcust_opapi.so").is_file():
            self.steps.fail(f"the installed package has no {vendor}/op_api/lib/libcust_opapi.so (vendor "
                            f"'{self.project.cann.vendor}')", environment=True, hint=self.hint)
            return False
        return ok

    @property
    def vendor_dir(self) -> Path:
        return self.opp_dir / "vendors" / self.project.cann.vendor

    def _launcher(self, source: str, result: BuildResult) -> None:
        ldir = self.out / "aclnn"
        ldir.mkdir(parents=True, exist_ok=True)
        (ldir / "kw_aclnn.cpp").write_text(source)
        (ldir / "CMakeLists.txt").write_text(cmake_gen.aclnn_project(ldir / "kw_aclnn.cpp", cann_root=self.inst.root,
                                                                      vendor_dir=self.vendor_dir))
        build = ldir / "build"
        if not self.steps.run([self.cmake, *cmake_gen.configure_args("c++", ldir, build)], self.out,
                              what="CMake configure (aclnn launcher)", limits=CONFIGURE_LIMITS, environment=True):
            return
        if not self.steps.run([self.cmake, "--build", str(build)], self.out, what="the aclnn launcher build",
                              environment=True):
            return
        lib = next(iter(sorted(build.rglob("libkw_aclnn.so"))), None)
        if lib is None:
            self.steps.fail(f"the aclnn launcher build produced no libkw_aclnn.so under {build}", environment=True)
            return
        result.artifacts["aclnn_library"] = self.final_path(lib)
        result.artifacts["opp_vendor_dir"] = self.final_path(self.vendor_dir)
