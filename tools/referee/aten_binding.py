"""Build an answer's pybind source as it is: a CPU PyTorch extension whose ATen code runs as written.

MultiKernelBench judges what `ModelNew` returns, and ModelNew returns what the compiled binding returns: a
binding that computes with ATen (`at::matmul`, `at::softmax`, `at::convolution` around or instead of its
EXEC_NPU_CMD) is judged on that result, because the harness's cheating check reads only ModelNew
(wzzll123/MultiKernelBench@460a972 utils/cheating_detection.py). The stand-in extension (tasks/model_new.py)
cannot follow such code, so such a binding is compiled here against the installed CPU libtorch, with
`pytorch_npu_helper.hpp` replaced by a header whose EXEC_NPU_CMD hands its arguments to the reference worker
(tasks/aten_hook.py), which asks the parent to run the built operator: the ATen parts run on the CPU, the
kernel on the chosen backend, in the order the binding has them.

Products are cached by content in $KERNELWRIGHT_HOME/aten_binding (a precompiled torch header shared by all,
one module per binding); the compile runs contained, with time and memory limits. A binding that does not
compile here is not judged this way (the reason says why), never a traceback.
"""
from __future__ import annotations

import importlib.util
import re
import sysconfig
from dataclasses import dataclass
from pathlib import Path

from kernelwright.tools.buildkit import cache, sandbox
from kernelwright.tools.buildkit.containment import View
from kernelwright.tools.referee.anticheat import builtin_launches, check_at_compute
from kernelwright.tools.buildkit.compiler import find_compiler

NAMESPACE = "aten_binding"
MODULE = "custom_ops_lib"     # the name MultiKernelBench's ModelNew imports
LIMITS = sandbox.Limits(wall_s=900, cpu_s=900, memory_bytes=None, file_bytes=1 << 30)

# The NPU helper, for a CPU build: EXEC_NPU_CMD(aclnnXxx, args...) calls
# kernelwright.tools.tasks.aten_hook.exec_npu_cmd("aclnnXxx", "args...", [args...]); tensors travel as the
# same storage (the hook writes the operator's outputs into them in place).
HELPER = r"""#pragma once
#include <torch/extension.h>
#include <pybind11/stl.h>
namespace kw_npu_stub {
inline pybind11::object conv(const at::Tensor& t) { return pybind11::cast(t); }
inline pybind11::object conv(const c10::optional<at::Tensor>& t) { return t ? pybind11::cast(*t) : pybind11::none(); }
inline pybind11::object conv(at::IntArrayRef v) { return pybind11::cast(v.vec()); }
inline pybind11::object conv(const at::Scalar& s) {
  return s.isFloatingPoint() ? pybind11::cast(s.toDouble()) : s.isBoolean() ? pybind11::cast(s.toBool())
                                                                             : pybind11::cast(s.toLong()); }
inline pybind11::object conv(const char* s) { return pybind11::str(s); }
inline pybind11::object conv(at::ScalarType t) { return pybind11::str(c10::toString(t)); }
inline pybind11::object conv(const std::string& s) { return pybind11::str(s); }
template <class T> pybind11::object conv(const T& v) { return pybind11::cast(v); }
template <class... A> void exec(const char* op, const char* names, const A&... a) {
  pybind11::gil_scoped_acquire gil;
  pybind11::list args;
  (args.append(conv(a)), ...);
  pybind11::module_::import("kernelwright.tools.tasks.aten_hook").attr("exec_npu_cmd")(op, names, args);
}
}  // namespace kw_npu_stub
#define EXEC_NPU_CMD(op, ...) kw_npu_stub::exec(#op, #__VA_ARGS__, ##__VA_ARGS__)
"""
PCH_HEADER = "#pragma once\n#include <torch/extension.h>\n#include <pybind11/stl.h>\n"
_ALLOWED_INCLUDE = re.compile(r"#\s*include\s*[<\"](torch/(?!csrc/autograd/custom_function)|ATen/|c10/(?!npu)|pybind11/|"
                              r"[a-z_]+(?:\.h)?[>\"])")


@dataclass
class NativeBinding:
    path: Path | None       # the built module (None: not built)
    reason: str = ""        # why not, or what was built


def wants_native(bindings: dict[str, str]) -> bool:
    """The binding computes with ATen (anticheat.check_at_compute's finding) or launches CANN's own operators
    (computed by PyTorch's equivalents in the worker, tasks/aten_hook.py): only running it as written follows."""
    return any(check_at_compute(src)[0] or builtin_launches(src) for src in bindings.values())


def prepare(src: str) -> str:
    """The answer's source for a CPU build: NPU-only includes dropped (the stub helper stands for them),
    operator registrations for the PrivateUse1 device dropped (a CPU process has no NPU to dispatch to;
    ModelNew calls the pybind functions directly, as MultiKernelBench's does)."""
    out = []
    for line in src.splitlines():
        if line.lstrip().startswith("#") and re.match(r"\s*#\s*include\b", line) and not _ALLOWED_INCLUDE.match(line.strip()):
            line = "// (NPU header, stubbed) " + line
        out.append(line)
    text = "\n".join(out)
    text = _drop_blocks(text, r"\bTORCH_LIBRARY(?:_IMPL|_FRAGMENT)?\s*\(")
    return '#include "kw_npu_helper.hpp"\n' + text


def _drop_blocks(text: str, head: str) -> str:
    """Remove `HEAD(...) { ... }` blocks (brace-balanced, on comment-free text positions)."""
    while True:
        m = re.search(head, text)
        if not m:
            return text
        brace = text.find("{", m.end())
        if brace < 0:
            return text
        depth, i = 0, brace
        for i in range(brace, len(text)):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            if depth == 0:
                break
        text = text[:m.start()] + text[i + 1:]


def _torch_dirs() -> tuple[Path, Path] | None:
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.origin:
        return None
    root = Path(spec.origin).parent
    return root / "include", root / "lib"


def _flags(inc: Path) -> list[str]:
    # -O0: the binding's own code only calls into libtorch (compiled already); optimising it costs minutes under load
    return ["-std=c++17", "-O0", "-fPIC", "-w", "-D_GLIBCXX_USE_CXX11_ABI=1", f"-DTORCH_EXTENSION_NAME={MODULE}",
            "-DTORCH_API_INCLUDE_EXTENSION_H", f"-I{inc}", f"-I{inc / 'torch/csrc/api/include'}",
            f"-I{sysconfig.get_paths()['include']}"]


def _run(compiler: str, args: list[str], out: Path, readable: tuple[str, ...]) -> sandbox.Completed:
    install = str(Path(compiler).resolve().parents[1])
    view = View(writable=(str(out),), readable=(install, *readable), env=(("TMPDIR", str(out)),))
    return sandbox.run([compiler, *args], cwd=out, limits=LIMITS, view=view)


def _pch(compiler: str, inc: Path, readable: tuple[str, ...]) -> tuple[Path | None, Path | None, str]:
    """A precompiled <torch/extension.h> (most of a binding's compile time), built once per install. Its
    header lives at a fixed path (a PCH records where its header was) beside the cache entries."""
    torch_id = str((inc / "torch/extension.h").stat().st_mtime_ns)
    key = cache.digest(["pch", compiler, str(inc), torch_id, PCH_HEADER, *_flags(inc), *cache.install_parts()])
    headers = cache.cache_root(NAMESPACE) / f"header-{key}"
    header = headers / "kw_torch.h"
    if not header.is_file():
        headers.mkdir(exist_ok=True)
        header.write_text(PCH_HEADER)
    entry = cache.entry(key, NAMESPACE)
    if not (entry / "kw_torch.h.pch").is_file():
        with cache.locked(key, NAMESPACE), cache.building(key, NAMESPACE) as tmp:
            if not (entry / "kw_torch.h.pch").is_file():
                r = _run(compiler, [*_flags(inc), "-x", "c++-header", str(header), "-o", "kw_torch.h.pch"], tmp,
                         (*readable, str(headers)))
                if r.returncode != 0:
                    (tmp / "build.log").write_text(r.stdout + r.stderr)
                    raise cache.Discard()
    if not (entry / "kw_torch.h.pch").is_file():
        return None, None, "the precompiled torch header could not be built"
    return entry / "kw_torch.h.pch", headers, ""


def build_native(src: str) -> NativeBinding:
    """The answer's binding built as a CPU extension module named custom_ops_lib, or why not."""
    dirs = _torch_dirs()
    if dirs is None:
        return NativeBinding(None, "torch is not installed here")
    inc, lib = dirs
    compiler = find_compiler()
    if compiler.family != "clang":
        return NativeBinding(None, f"native bindings are built with clang++ (found {compiler.path})")
    readable = (str(inc.parent), sysconfig.get_paths()["include"])
    pch, headers, why = _pch(compiler.path, inc, readable)
    if pch is None or headers is None:
        return NativeBinding(None, why)
    code = prepare(src)
    key = cache.digest(["module", code, HELPER, str(pch), *cache.install_parts()])
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    entry = cache.entry(key, NAMESPACE)
    built = entry / f"{MODULE}{suffix}"
    if built.is_file():
        return NativeBinding(built, "cached")
    log = ""
    with cache.locked(key, NAMESPACE), cache.building(key, NAMESPACE) as tmp:
        (tmp / "kw_npu_helper.hpp").write_text(HELPER)
        (tmp / "binding.cpp").write_text(code)
        args = [*_flags(inc), "-include-pch", str(pch), "-shared", "binding.cpp", "-o", built.name,
                f"-L{lib}", "-ltorch", "-ltorch_cpu", "-lc10", "-ltorch_python", f"-Wl,-rpath,{lib}"]
        r = _run(compiler.path, args, tmp, (*readable, str(pch.parent), str(headers), str(lib)))
        log = (r.stderr or r.stdout)[-1500:]
        (tmp / "build.log").write_text(r.stdout + r.stderr)
        if r.returncode != 0:
            raise cache.Discard()
    if built.is_file():
        return NativeBinding(built, "built")
    errors = [ln for ln in log.splitlines() if "error:" in ln][:3]
    return NativeBinding(None, "the binding does not compile as a CPU torch extension: " +
                         ("; ".join(e.replace(str(entry), "") for e in errors) or log[-300:]))
