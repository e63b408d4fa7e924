"""Run one case of a built project on the CPU emulation: host tiling (msopgen), then the
kernel on every block in a sandboxed subprocess; outputs and findings come back as data.

Each step sees its executable (read-only, checked against the build's seal first) and the run's
own directory; the kernel's blocks are forked inside its sandbox. Steps go to the build's long-lived
sandbox (`buildkit.executor`) when the toolchain gives one, else each gets a sandbox of its own."""
from __future__ import annotations

import json
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from kernelwright.tools.buildkit import cache, sandbox
from kernelwright.tools.buildkit.sandbox import View
from kernelwright.tools.buildkit.diagnostics import PathMapper
from kernelwright.tools.buildkit.executor import Executor
from kernelwright.tools.buildkit.sources import column_ctypes, variant_key
from kernelwright.tools.dtypes import BY_NAME, KERNEL_DTYPES, name_of, numpy_dtype
from kernelwright.tools.hardware import SocProfile
from kernelwright.tools.opspec import OpParam, OpSpec
from kernelwright.tools.sim import host_calls, shape_out
from kernelwright.tools.sim.manifest import FORMAT_ND, dims, line, list_line_fields, platform_line, soc_line
from kernelwright.tools.sim.reports import RunReport
from kernelwright.tools.sim.run_limits import run_limits
from kernelwright.tools.sim.runtime_lib import INCLUDE_DIR
from kernelwright.tools.sim.shape_out import SHAPE_OUT
from kernelwright.tools.sim.trace import read_trace
from kernelwright.tools.tensor_lists import gaps, instance_keys, is_dynamic
from kernelwright.tools.toolchain import BadCase, BuildResult, Case, Diagnostic, RunResult

HOST_DATA_LIMIT = 1 << 20   # inputs up to this size are visible to TilingFunc (GetInputTensor()->GetData())


# what a kernel here can be given: complex64 too, whose bytes the sim moves and kernels read as float pairs
# (NPUKernelBench's Ccopy, Muls and Icamax take complex64 tensors)
SIM_DTYPES: frozenset[str] = KERNEL_DTYPES | {"complex64"}


def _at(p: OpParam, col: int) -> str:
    """The parameter's dtype in column `col` (a parameter with fewer columns repeats its last)."""
    return p.dtypes[min(col, len(p.dtypes) - 1)]


def sample_of(block_dim: int, n: int) -> list[int]:
    """The blocks a sampled launch runs: the first, the last and the rest spread evenly between them."""
    if n <= 1:
        return [0]
    return sorted({round(i * (block_dim - 1) / (n - 1)) for i in range(n)})


class Runner:
    def __init__(self, build: BuildResult, case: Case, soc: SocProfile, race_check: bool = True, keep_dir: bool = False,
                 executor: Executor | None = None):
        self.build, self.case, self.soc, self.race_check, self.keep = build, case, soc, race_check, keep_dir
        self.executor = executor   # the build's long-lived sandbox; None: a sandbox per step
        self.dir = executor.new_dir() if executor else Path(tempfile.mkdtemp(prefix="kw-run-"))
        self.mapper = PathMapper(Path(build.artifacts.get("src", "/nonexistent")), INCLUDE_DIR)
        self.result = RunResult(toolchain="sim", status="ok")

    def run(self) -> RunResult:
        start = time.monotonic()
        try:
            if not self.build.ok:
                self.result.status, self.result.detail = "build_error", "the project did not build"
            elif self.build.op is not None:
                self._run_msopgen()
            else:
                self._run_launch()
        except BadCase as e:
            self.result.status, self.result.detail = "bad_case", str(e)
            self.result.diagnostics.append(Diagnostic(stage="run", category="other", message=str(e)))
        finally:
            self.result.seconds = time.monotonic() - start
            if not self.keep:
                shutil.rmtree(self.dir, ignore_errors=True)
        return self.result

    # ---- shared ----
    def _write(self, name: str, arr: np.ndarray) -> Path | str:
        if self.case.trace_only and arr.nbytes > HOST_DATA_LIMIT and not any(arr.strides):
            return "-"             # a trace-only run's placeholder input: GM starts as zeros, committed when touched
        p = self.dir / f"in_{name}.bin"
        np.ascontiguousarray(arr).tofile(p)
        return p

    def _step(self, exe: str | Path, args: list[str], limits: sandbox.Limits) -> sandbox.Completed:
        """One sandboxed step on a built executable, refused when the build changed since it was sealed."""
        root = cache.sealed_root(Path(exe))
        if root is None or cache.tampered(root, [str(Path(exe).relative_to(root))]):
            raise BadCase(f"the built executable {Path(exe).name} is not the one the builder sealed (changed "
                          "or removed after the build); rebuild the project")
        if self.executor:
            return self.executor.run([str(exe), *args], cwd=self.dir, limits=limits)
        # the sealed build, as the pooled executor sees it: a MIX kernel's runner loads its cube-core library from there
        return sandbox.run([str(exe), *args], cwd=self.dir, limits=limits,
                           view=View(writable=(str(self.dir),), readable=(str(root),)))

    def _execute(self, exe: Path, manifest: list[str], outputs: dict[str, tuple[tuple[int, ...], np.dtype]]) -> None:
        mpath = self.dir / "manifest.txt"
        mpath.write_text("\n".join(manifest) + "\n")
        limits = run_limits(self.case, manifest)
        r = self._step(exe, [str(mpath)], limits)
        self.result.stdout = r.stdout[-20000:]
        report = RunReport(self.dir, exe, self.mapper)
        self.result.diagnostics += report.diagnostics()
        self.result.counters = report.counters()
        self.result.trace = read_trace(self.dir)
        if self.result.trace is not None and self.result.sampled:
            for lt in self.result.trace.launches:   # the traces know the highest traced block, not the launch's
                lt.sampled, lt.block_dim = list(self.result.sampled), max(lt.block_dim, self._sampled_dim)
        launch = report.launch
        if r.timed_out:
            self.result.status, self.result.detail = "timeout", f"the emulator was killed after {limits.wall_s:.0f} s"
            return
        if r.sandbox_error:
            self.result.status, self.result.detail = "crash", r.sandbox_error
            return
        if r.returncode == 64:
            raise BadCase(r.stderr.strip().replace("kernelwright runner: ", ""))
        if launch is None:
            self.result.status = "crash"
            self.result.detail = f"the emulator exited with {r.returncode} before finishing: {r.stderr[-1500:]}"
            return
        self.result.block_dim = int(launch["block_dim"])
        self.result.block_status = list(launch["blocks"])
        self.result.status = {0: "ok", 1: "rule_violation", 2: "crash", 3: "timeout", 4: "bad_case"}.get(int(launch["status"]), "crash")
        self.result.detail = launch.get("detail", "")
        if self.result.status == "ok" and any(d.severity == "error" for d in self.result.diagnostics):
            self.result.status = "rule_violation"
        for name, (shape, dtype) in ({} if self.case.trace_only else outputs).items():
            f = self.dir / f"out_{name}.bin"
            if f.exists():
                data = np.fromfile(f, dtype=dtype)
                if data.size != int(np.prod(shape, dtype=np.int64)):   # e.g. cut short by the file-size limit
                    self.result.status = "crash"
                    self.result.detail = f"the emulator wrote {data.nbytes} bytes of output {name}, not {list(shape)}"
                    continue
                self.result.outputs[name] = data.reshape(shape)
        if self.result.sampled and not self.case.trace_only:
            for f in self.dir.glob("written_*.txt"):
                spans = [tuple(map(int, ln.split())) for ln in f.read_text().splitlines() if ln.strip()]
                self.result.written[f.stem[len("written_"):]] = spans   # type: ignore[misc]

    def _header(self, kernel: str, block_dim: int, tiling_key: int) -> list[str]:
        m = [soc_line(self.soc), line("out_dir", self.dir), line("timeout_ms", int(self.case.timeout_s * 1000)),
             line("race_check", int(self.race_check and not self.case.trace_only)), line("tiling_key", tiling_key), line("kernel", kernel),
             line("block_dim", block_dim)]
        if self.case.trace_only:     # runtime/scheduler.cpp: a sampled SyncAll waits for the sampled blocks only
            m.append(line("trace_only", 1))
            if self.case.trace_budget:   # runtime/state.cpp: a block stops after this many GM bytes, its trace cut
                m.append(line("trace_budget", self.case.trace_budget))
        if self.case.sample_blocks and block_dim > self.case.sample_blocks:   # before the buffers (runtime/sample.cpp)
            self.result.sampled, self._sampled_dim = sample_of(block_dim, self.case.sample_blocks), block_dim
            m.append(line("sample", ",".join(map(str, self.result.sampled))))
        return m

    # ---- kernel-launch projects ----
    def _run_launch(self) -> None:
        c = self.case
        kernels = self.build.kernels
        kernel = c.kernel or (kernels[0] if len(kernels) == 1 else None)
        if kernel is None:
            raise BadCase(f"the project has several kernels ({', '.join(kernels)}); say which one to run (case.kernel)")
        if c.block_dim is None or c.args is None:
            raise BadCase("a kernel-launch case needs block_dim and args (the kernel's parameters in order)")
        exe = Path(self.build.artifacts["kernel_exe"])
        m = self._header(kernel, c.block_dim, c.tiling_key)
        outputs: dict[str, tuple[tuple[int, ...], np.dtype]] = {}
        for i, a in enumerate(c.args):
            if a.kind == "tensor":
                if a.name in c.generated:   # made by the runner on first touch (runtime/generated.cpp)
                    m.append(line("buffer", a.name, np.asarray(c.inputs[a.name]).nbytes, "in", f"gen:{c.generated[a.name]}"))
                elif a.name in c.inputs:
                    arr = np.asarray(c.inputs[a.name])
                    role = "inout" if a.name in c.outputs else "in"
                    m.append(line("buffer", a.name, arr.nbytes, role, self._write(a.name, arr)))
                    if role == "inout":
                        outputs[a.name] = (arr.shape, arr.dtype)
                elif a.name in c.outputs:
                    spec = c.outputs[a.name]
                    dt = numpy_dtype(spec.dtype)
                    m.append(line("buffer", a.name, int(np.prod(spec.shape, dtype=np.int64)) * dt.itemsize, "out", "-",
                                  spec.poison or "-"))
                    outputs[a.name] = (tuple(spec.shape), dt)
                else:
                    raise BadCase(f"argument {i} names tensor '{a.name}', which is neither an input nor an output of the case")
                m.append(line("arg", "buffer", a.name))
            elif a.kind == "int":
                m.append(line("arg", "int", int(a.value)))
            elif a.kind == "float":
                m.append(line("arg", "float", repr(float(a.value))))
            elif a.kind == "bytes":
                m.append(line("arg", "bytes", a.value))
            elif a.kind in ("workspace", "tiling"):
                name = a.name or a.kind
                data = bytes.fromhex(a.value) if isinstance(a.value, str) and a.value else b""
                if data:
                    (self.dir / f"in_{name}.bin").write_bytes(data)
                m.append(line("buffer", name, max(a.bytes, len(data)), a.kind, self.dir / f"in_{name}.bin" if data else "-"))
                m.append(line("arg", "buffer", name))
            else:
                m.append(line("arg", "null"))
        self._execute(exe, m, outputs)

    # ---- msopgen projects ----
    def _variant(self, op: OpSpec) -> tuple[int, dict[str, str]]:
        c = self.case
        columns = max((len(p.dtypes) for p in op.inputs + op.outputs), default=0)
        for col in range(columns):
            ok = True
            for p in op.inputs:
                for key in instance_keys(p, c.inputs)[:1] if p.dtypes else []:
                    if name_of(np.asarray(c.inputs[key])) != _at(p, col):
                        ok = False
            for p in op.outputs:  # outputs disambiguate columns that share input dtypes (e.g. casts)
                for key in instance_keys(p, c.outputs)[:1] if p.dtypes else []:
                    if c.outputs[key].dtype != _at(p, col):
                        ok = False
            if ok:
                return col, column_ctypes(op, col)
        got = ", ".join(f"{k}:{np.asarray(v).dtype}" for k, v in c.inputs.items())
        declared = "; ".join(f"{p.name}: {'/'.join(BY_NAME[d].ge if d in BY_NAME else d for d in p.dtypes)}"
                             for p in op.inputs)      # as the OpDef spells them
        raise BadCase(f"no dtype combination of {op.op_type}'s OpDef matches the inputs ({got}); declared: {declared}")

    def _attr_lines(self, op: OpSpec) -> list[str]:
        out = []
        for a in op.attrs:
            v = self.case.attrs.get(a.name, a.default)
            if v is None:
                if a.param_type == "required":
                    raise BadCase(f"attribute '{a.name}' is required by {op.op_type} and the case does not give it")
                v = 0
            if isinstance(v, (list, tuple)):
                v = ",".join(str(int(x) if isinstance(x, bool) else x) for x in v)
            elif isinstance(v, bool):
                v = int(v)
            out.append(line("attr", a.type, v))
        return out

    def _instances(self, params: list[OpParam], keys: dict[str, Any], what: str) -> list[list[str]]:
        """Per OpDef parameter, the case keys of its instances (see tensor_lists)."""
        out = []
        for p in params:
            ks = instance_keys(p, keys)
            if is_dynamic(p) and gaps(keys, p.name):
                raise BadCase(f"{what} list '{p.name}' misses members {gaps(keys, p.name)} (the case has "
                              f"{', '.join(ks)}); a tensor list is {p.name}[0], {p.name}[1], ... without holes")
            if is_dynamic(p) and not ks and p.name in keys:
                raise BadCase(f"{what} '{p.name}' is a tensor list (ParamType(DYNAMIC)); give its tensors as "
                              f"'{p.name}[0]', '{p.name}[1]', ... rather than one tensor '{p.name}'")
            out.append(ks)
        return out

    def _output_instances(self, op: OpSpec, inputs: list[list[str]]) -> list[list[str]]:
        """Outputs the case names; a DYNAMIC output it does not name gets as many tensors as the first
        tensor-list input (as the Foreach ops return), with the shapes InferShape gives."""
        outs = self._instances(op.outputs, self.case.outputs, "output")
        first_list = next((ks for p, ks in zip(op.inputs, inputs) if is_dynamic(p)), [])
        for i, p in enumerate(op.outputs):
            if not outs[i]:
                outs[i] = [f"{p.name}[{k}]" for k in range(len(first_list))] if is_dynamic(p) else [p.name]
        return outs

    def _run_msopgen(self) -> None:
        op, c = self.build.op, self.case
        assert op is not None
        col, macros = self._variant(op)
        exe_key = f"kernel_exe:{variant_key(macros)}"
        if exe_key not in self.build.artifacts:
            raise BadCase(f"the kernel variant {variant_key(macros)} did not compile")
        ins = self._instances(op.inputs, c.inputs, "input")
        outs = self._output_instances(op, ins)
        host = [platform_line(self.soc), line("op", op.op_type)]
        for ir, (p, keys) in enumerate(zip(op.inputs, ins)):
            if not keys:
                if p.param_type == "required":
                    raise BadCase(f"input '{p.name}' of {op.op_type} is required and missing from the case")
                host.append(line("input", 0, 1, FORMAT_ND, "", "-", ir))
                continue
            for key in keys:
                arr = np.asarray(c.inputs[key])
                data = self._write(key, arr) if arr.nbytes <= HOST_DATA_LIMIT or p.value_depend else "-"
                host.append(line("input", 1, BY_NAME[name_of(arr)].ge_value, FORMAT_ND, dims(arr.shape), data, ir))
        for ir, (p, keys) in enumerate(zip(op.outputs, outs)):
            dt = BY_NAME.get(_at(p, col) if p.dtypes else "float32")
            for key in keys:
                shape = c.outputs[key].shape if key in c.outputs else ()
                host.append(line("output", dt.ge_value if dt else 0, FORMAT_ND, dims(shape), ir))
        host += self._attr_lines(op)
        tiling = self._host_tiling(host)
        if tiling is None:
            return
        self.result.tiling = tiling
        m = self._header(self.build.kernels[0], int(tiling["block_dim"]), int(tiling["tiling_key"]))
        cube = self.build.artifacts.get(f"kernel_cube:{variant_key(macros)}")
        if cube:  # a MIX kernel with its own cube code (mix.py)
            m.append(line("cube", cube, self.build.artifacts["cube_ratio"]))
        outputs: dict[str, tuple[tuple[int, ...], np.dtype]] = {}
        out_names = {k for ks in outs for k in ks}
        for p, keys in zip(op.inputs, ins):
            if not keys and not is_dynamic(p):
                m.append(line("arg", "null"))
                continue
            for key in keys:
                arr = np.asarray(c.inputs[key])
                # listing an input in case.outputs reads its final contents back (as kernel-launch cases do)
                inout = key in out_names or key in c.outputs
                if key in c.generated:   # made by the runner on first touch (runtime/generated.cpp)
                    m.append(line("buffer", key, arr.nbytes, "in", f"gen:{c.generated[key]}"))
                    continue
                m.append(line("buffer", key, arr.nbytes, "inout" if inout else "in", self.dir / f"in_{key}.bin"
                              if (self.dir / f"in_{key}.bin").exists() else self._write(key, arr)))
                if inout:
                    outputs[key] = (arr.shape, arr.dtype)
            self._arg(m, p, keys, [np.asarray(c.inputs[k]).shape for k in keys])
        instance = 0
        for p, keys in zip(op.outputs, outs):
            shapes = []
            for key in keys:
                if key in outputs:
                    shapes.append(outputs[key][0])
                    instance += 1
                    continue
                shape = tuple(c.outputs[key].shape) if key in c.outputs else tuple(tiling["output_shapes"][instance])
                declared = _at(p, col) if p.dtypes else "float32"
                dt = numpy_dtype(c.outputs[key].dtype if key in c.outputs else
                                 declared if declared in SIM_DTYPES else "float32")
                nbytes = int(np.prod(shape, dtype=np.int64)) * dt.itemsize
                m.append(line("buffer", key, nbytes, "out", "-", (c.outputs[key].poison if key in c.outputs else None) or "-"))
                outputs[key] = (shape, dt)
                shapes.append(shape)
                instance += 1
            self._arg(m, p, keys, shapes)
        refreshed = [keys[0] for p, keys in zip(op.outputs, outs) if p.shape_depend_on_compute and len(keys) == 1]
        if refreshed:  # the kernel writes those outputs' real shapes into one more argument (shape_out.py)
            m.append(line("buffer", SHAPE_OUT, shape_out.size(len(refreshed)), "out", "-"))
            m.append(line("arg", "buffer", SHAPE_OUT))
        ws = sum(int(w) for w in tiling.get("workspace_sizes", []))
        m.append(line("buffer", "workspace", ws, "workspace", "-"))
        m.append(line("arg", "buffer", "workspace"))
        tb = bytes.fromhex(tiling["tiling_data"])
        (self.dir / "tiling.bin").write_bytes(tb)
        m.append(line("buffer", "tiling", len(tb), "tiling", self.dir / "tiling.bin" if tb else "-"))
        m.append(line("arg", "buffer", "tiling"))
        self._execute(Path(self.build.artifacts[exe_key]), m, outputs)
        if refreshed:
            shape_out.refresh(self.result, refreshed, self.dir / f"out_{SHAPE_OUT}.bin")

    @staticmethod
    def _arg(m: list[str], p: OpParam, keys: list[str], shapes: list[tuple[int, ...]]) -> None:
        """The kernel argument of one OpDef parameter: its buffer, or a tensor-list descriptor."""
        if is_dynamic(p):
            m.append(line(*list_line_fields(p.name, keys, shapes)))
            m.append(line("arg", "buffer", p.name))
        else:
            m.append(line("arg", "buffer", keys[0]))

    def _host_tiling(self, host: list[str]) -> dict[str, Any] | None:
        mpath = self.dir / "host_manifest.txt"
        mpath.write_text("\n".join(host) + "\n")
        host_exe = self.build.artifacts["host_exe"]
        earlier = host_calls.earlier_manifests(host_exe, self.dir)
        r = self._step(host_exe, ["tiling", str(mpath), *earlier], sandbox.Limits(wall_s=60, cpu_s=60))
        try:
            data = json.loads(r.stdout.strip().splitlines()[-1]) if r.stdout.strip() else None
        except json.JSONDecodeError:
            data = None
        if data is None or r.timed_out or r.returncode != 0:
            why = "timed out" if r.timed_out else f"exited with {r.returncode}"
            self._host_error(f"the host TilingFunc {why}: {r.stderr[-1500:]}", "host.crash")
            return None
        if data["status"] != "ok":
            self._host_error(f"tiling failed ({data['status']}): {data.get('message', '')}".strip(), "host.tiling_failed")
            return None
        if int(data["block_dim"]) == 0:
            self._host_error("TilingFunc returned without calling SetBlockDim (blockDim is 0)", "host.block_dim")
            return None
        stale = host_calls.stale_finding(data, bool(earlier))
        if stale:
            self._host_error(stale, "host.state_across_calls",
                             "keep no state in statics or globals of the host code: compute every tiling value from the "
                             "context of this call (shapes, attributes, platform)")
            return None
        host_calls.remember(host_exe, host)
        return data

    def _host_error(self, message: str, rule: str, hint: str = "check TilingFunc: it must SetBlockDim, save the tiling "
                    "data and return ge::GRAPH_SUCCESS for this input shape") -> None:
        self.result.status, self.result.detail = "host_error", message
        self.result.diagnostics.append(Diagnostic(stage="host", rule=rule, category="runtime_rule", message=message,
                                                  hint=hint))
