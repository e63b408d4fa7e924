"""Build a KernelProject for the CPU emulation: prepare the sources, compile the host side of
msopgen projects and read its op definition, then compile and link one kernel executable per
dtype variant. Results (including compile errors) are cached by content; infrastructure failures
(a step that timed out, a sandbox that did not start) are not.

Every step is sandboxed: the compiler sees its installation, our headers, the runtime and the build
directory (its only writable place); the op_host executable that describes the operator (its static
constructors run there) sees only itself and a scratch directory, never the build it belongs to."""
from __future__ import annotations

import json
import re
import shutil
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

from kernelwright.tools.buildkit import cache, sandbox
from kernelwright.tools.buildkit.sandbox import View
from kernelwright.tools.buildkit.diagnostics import PathMapper, dedupe, parse
from kernelwright.tools.buildkit.sources import dtype_variants, variant_key
from kernelwright.tools.dtypes import BY_GE
from kernelwright.tools.opspec import OpAttr, OpParam, OpSpec
from kernelwright.tools.project import KernelProject
from kernelwright.tools.sim import includes, mix, sources
from kernelwright.tools.buildkit.compiler import Compiler
from kernelwright.tools.sim.runtime_lib import INCLUDE_DIR, RuntimeLib, compiler_view
from kernelwright.tools.toolchain import BuildResult, Diagnostic

COMPILE_LIMITS = sandbox.Limits(wall_s=180, cpu_s=300, memory_bytes=6 << 30)
DESCRIBE_LIMITS = sandbox.Limits(wall_s=30, cpu_s=30)
_OP_API = re.compile(r'#include\s*["<](?:aclnn/|opdev/|aclnn_kernels/|level0/|level2/)')


# the Python that writes a build's inputs (generated units, tiling structs, dtype macros)
BUILDER_CODE = ("tools/sim/build.py", "tools/sim/sources.py", "tools/sim/includes.py", "tools/buildkit/sources.py",
                "tools/dtypes.py")


def build_key(rt: RuntimeLib, project: KernelProject) -> str:
    parts = [rt.root.name, cache.code_digest(*BUILDER_CODE), project.kind, project.name]
    for rel in sorted(project.files):
        parts += [rel, project.files[rel]]
    parts += includes.key_parts(project)
    return "build-" + cache.digest(parts)


class Builder:
    def __init__(self, rt: RuntimeLib, project: KernelProject, out: Path, final: Path):
        self.rt, self.project, self.out, self.final = rt, project, out, final
        self.compiler: Compiler = rt.compiler
        self.src = out / "src"
        self.mapper = PathMapper(self.src, INCLUDE_DIR)
        self.log: list[str] = []
        self.diags: list[Diagnostic] = []
        self.extra_flags = includes.flags(project)  # the project's own include dirs beyond CANN's
        self.view = compiler_view(rt.compiler, out, (str(rt.root), *map(str, includes.extra_dirs(project))))
        self.infrastructure: list[str] = []  # failures that are not the kernel's: the result is not cached

    # the build directory is renamed into the cache when done; artefacts are recorded at their final paths
    def final_path(self, p: Path) -> str:
        return str(self.final / p.relative_to(self.out))

    def _compile(self, args: list[str]) -> bool:
        # debug info must name the final cache path, where the executable will be symbolized
        prefix_map = f"-fdebug-prefix-map={self.out}={self.final}"
        tmp = tempfile.mkdtemp(prefix=".tmp-", dir=self.out)   # the compiler's temporary files stay in the build
        try:
            view = replace(self.view, env=(*self.view.env, ("TMPDIR", tmp)))
            r = sandbox.run([self.compiler.path, prefix_map, *args, f"-I{self.out / 'kwinc'}", *self.extra_flags],
                            cwd=self.out, limits=COMPILE_LIMITS, view=view)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        text = (r.stdout + r.stderr).replace(str(self.out) + "/", "")
        if text.strip():
            self.log.append(text)
        if r.infrastructure_failure:
            why = r.sandbox_error or f"the compiler did not finish within {COMPILE_LIMITS.wall_s:.0f} s"
            self.infrastructure.append(why)
            self.diags.append(Diagnostic(stage="build", message=why + " (not cached: the next build tries again)",
                                         category="other"))
            return False
        if r.returncode != 0 or "error:" in r.stderr:
            found = parse(r.stderr + r.stdout, self.mapper)
            self.diags.extend(found or [Diagnostic(stage="build", message=(r.stderr or r.stdout)[-2000:] or
                                                   f"compiler exited with {r.returncode}")])
            return r.returncode == 0 and not any(d.severity == "error" for d in found)
        return True

    def run(self) -> BuildResult:
        start = time.monotonic()
        units = sources.prepare_tree(self.project.files, self.src, msopgen=self.project.kind == "msopgen")
        sources.cann_header_stubs(self.project.files, INCLUDE_DIR, self.out / "kwinc")
        result = BuildResult(toolchain="sim", status="ok", project=self.project.name, compiler=self.compiler.identity)
        if self.project.kind == "msopgen":
            self._build_msopgen(result, units)
        else:
            self._build_launch(result, units)
        result.diagnostics = dedupe(self.diags)
        if any(d.severity == "error" for d in result.diagnostics) and result.status == "ok":
            result.status = "compile_error"
        result.log = "\n".join(self.log)[-20000:]
        result.seconds = time.monotonic() - start
        return result

    # ---- kernel-launch projects ----
    def _build_launch(self, result: BuildResult, units: list[str]) -> None:
        objs, kernels = [], []
        for i, rel in enumerate(units):
            names = [n for n in self.project.kernel_names() if n in self.project.files[rel]]
            hosts = sources.host_entries(self.project.files[rel])
            tu = self.out / f"unit_{i}.cpp"
            tu.write_text(sources.kernel_unit(rel, self.src, names, hosts=hosts))
            obj = self.out / f"unit_{i}.o"
            if self._compile(self.rt.kernel_flags() + [f"-I{(self.src / rel).parent}", f"-I{self.src}", "-c", str(tu), "-o", str(obj)]):
                objs.append(obj)
            kernels += names + hosts
        result.kernels = kernels
        if len(objs) == len(units) and objs:
            exe = self.out / "kernel_exe"
            if self._link(objs, self.rt.kernel_archive, exe):
                result.artifacts["kernel_exe"] = self.final_path(exe)
        result.artifacts["src"] = self.final_path(self.src)

    def _link(self, objs: list[Path], archive: Path, exe: Path, extra: tuple[str, ...] = (), libs: tuple[str, ...] = ()) -> bool:
        # symbols bound at start-up: every block is a fork of the runner and would otherwise resolve them again
        return self._compile(["-no-pie", "-Wl,-z,now", *extra, *map(str, objs), str(archive), *libs, "-o", str(exe)])

    # ---- msopgen projects ----
    def _build_msopgen(self, result: BuildResult, units: list[str]) -> None:
        # op_api sources (aclnn/opdev) belong to the ACLNN library, not to tiling or the op definition
        host_units = [u for u in units if u.startswith("op_host/") and not _OP_API.search(self.project.files[u])]
        kernel_units = [u for u in self.project.kernel_sources() if u in units]
        result.artifacts["src"] = self.final_path(self.src)
        host_objs = []
        for i, rel in enumerate(host_units):
            obj = self.out / f"host_{i}.o"
            if self._compile(self.rt.host_flags() + [f"-I{self.src / 'op_host'}", "-c", str(self.src / rel), "-o", str(obj)]):
                host_objs.append(obj)
        if len(host_objs) != len(host_units) or not host_objs:
            if not host_units:
                self.diags.append(Diagnostic(stage="build", message="the project has no op_host/*.cpp (TilingFunc and OpDef)",
                                             category="syntax_structure"))
            return
        host_exe = self.out / "host_exe"
        # CANN links the op_host sources into separate libraries (optiling, opsproto, op_host_aclnn),
        # so a non-inline helper in a header they share is defined once per library, not twice in one
        if not self._link(host_objs, self.rt.host_archive, host_exe, ("-Wl,--allow-multiple-definition",)):
            return
        result.artifacts["host_exe"] = self.final_path(host_exe)
        described = self._describe(host_exe)
        if described is None:
            return
        result.op, tiling_classes = described
        result.artifacts["describe"] = self.final_path(self.out / "describe.json")   # the OpDefs and tiling layouts
        (self.out / "kw_tiling.h").write_text(sources.tiling_header(result.op.op_type, tiling_classes))
        if not kernel_units:
            self.diags.append(Diagnostic(stage="build", category="syntax_structure",
                                         message=f"no kernel source: expected op_kernel/{self.project.snake_name}.cpp"))
            return
        variants = dtype_variants(result.op, orig=True) or [{}]
        kernel_rel = kernel_units[0]
        kernel_name = self.project.snake_name
        result.kernels = [kernel_name]

        kernel_texts = [t for rel, t in self.project.files.items() if rel.startswith("op_kernel/")]
        aic_only = mix.cube_only(kernel_texts)
        ratio = 0 if aic_only else mix.cube_ratio(kernel_texts)
        includes_ = [f"-I{self.src / 'op_kernel'}", f"-I{self.src}"]
        core_flags = self.rt.kernel_flags("aic" if aic_only else "aiv")   # a cube-only kernel: for the AIC alone

        def compile_variant(i: int) -> tuple[int, bool]:
            tu = self.out / f"kernel_v{i}.cpp"
            tu.write_text(sources.kernel_unit(kernel_rel, self.src, [kernel_name],
                                              sources.msopgen_prologue(self.out / "kw_tiling.h", variants[i])))
            obj = self.out / f"kernel_v{i}.o"
            ok = self._compile(core_flags + includes_ + ["-c", str(tu), "-o", str(obj)])
            if ok and ratio:
                ok = self._cube_library(tu, includes_, self.out / f"kernel_v{i}_cube.so")
            # a MIX runner exports the whole runtime: the cube-core library calls parts the AIV code never does (gemm.cpp)
            whole = ("-rdynamic", "-Wl,--whole-archive", str(self.rt.kernel_archive), "-Wl,--no-whole-archive")
            return i, ok and self._link([obj], self.rt.kernel_archive, self.out / f"kernel_v{i}",
                                        *((whole, ("-ldl",)) if ratio else ()))

        with ThreadPoolExecutor(max_workers=2) as pool:
            done = list(pool.map(compile_variant, range(len(variants))))
        for i, ok in done:
            key = variant_key(variants[i])
            result.variants.append(key)
            if ok:
                result.artifacts[f"kernel_exe:{key}"] = self.final_path(self.out / f"kernel_v{i}")
                if ratio:
                    result.artifacts[f"kernel_cube:{key}"] = self.final_path(self.out / f"kernel_v{i}_cube.so")
        if ratio:
            result.artifacts["cube_ratio"] = str(ratio)

    def _cube_library(self, tu: Path, includes_: list[str], lib: Path) -> bool:
        """The AIC copy of a MIX kernel (mix.py): the unit compiled for the cube core, as a shared library whose
        own inline code stays its own (-Bsymbolic); the runtime it calls is the executable's."""
        obj = lib.with_suffix(".o")
        return (self._compile(self.rt.kernel_flags("aic_pic") + includes_ + ["-c", str(tu), "-o", str(obj)])
                and self._compile(["-shared", "-fPIC", "-Wl,-Bsymbolic", str(obj), "-o", str(lib)]))

    def _describe(self, host_exe: Path) -> tuple[OpSpec, list[dict[str, Any]]] | None:
        """The project's operator as its OpDef registers it, and the tiling-data layouts of the host."""
        scratch = self.out / ".describe"
        scratch.mkdir()
        try:
            r = sandbox.run([str(host_exe), "describe"], cwd=scratch, limits=DESCRIBE_LIMITS,
                            view=View(writable=(str(scratch),), readable=(str(host_exe),)))
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        if r.infrastructure_failure:
            why = r.sandbox_error or (f"the op_host code did not finish registering the operator within "
                                      f"{DESCRIBE_LIMITS.wall_s:.0f} s (a hang in a static constructor or OpDef?)")
            self.infrastructure.append(why)
            self.diags.append(Diagnostic(stage="host", category="other", message=why + " (not cached: the next build "
                                         "tries again)"))
            return None
        try:
            data = json.loads(r.stdout)
        except json.JSONDecodeError:
            self.diags.append(Diagnostic(stage="host", category="other", message="the op_host code failed while registering "
                                         f"the operator (exit {r.returncode}): {r.stderr[-1500:]}"))
            return None
        ops = data.get("ops", [])
        op = next((o for o in ops if o["type"] == self.project.name), ops[0] if len(ops) == 1 else None)
        if op is None:
            names = ", ".join(o["type"] for o in ops) or "none"
            self.diags.append(Diagnostic(stage="host", category="api_signature", symbol="OP_ADD",
                                         message=f"no operator definition for '{self.project.name}' (OP_ADD registered: {names})",
                                         hint="declare `class X : public OpDef` and register it with OP_ADD(X) in op_host"))
            return None
        (self.out / "describe.json").write_text(json.dumps(data, indent=1))
        return op_spec(op), data.get("tiling_classes", [])


def op_spec(described: dict[str, Any]) -> OpSpec:
    """An OpDef as the host runner's `describe` prints it (GE dtype names, attribute defaults as text) ->
    OpSpec. A dtype outside our table keeps its GE name."""
    def param(p: dict[str, Any]) -> OpParam:
        return OpParam(name=p["name"], param_type=p["param_type"] if p["param_type"] in ("required", "dynamic") else
                       "optional", dtypes=[BY_GE[d].name if d in BY_GE else d for d in p["dtypes"]],
                       formats=p["formats"], scalar=p["scalar"], value_depend=p["value_depend"],
                       shape_depend_on_compute=p.get("shape_depend_on_compute", False))
    return OpSpec(op_type=described["type"], inputs=[param(p) for p in described["inputs"]],
                  outputs=[param(p) for p in described["outputs"]],
                  attrs=[OpAttr(name=a["name"], type=a["type"], param_type="required" if a["required"] else "optional",
                                default=a["default"] if a["default"] != "" else None) for a in described["attrs"]])

