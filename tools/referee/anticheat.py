"""Static anti-cheat checks on a project's glue: the `ModelNew` module and the C++ binding.

A kernel that "passes" by computing through PyTorch is not a kernel. Each check is a small function
`check_x(src) -> (flagged, reason)` with its rationale; `STRICT` checks fail the verdict, `WARN`
checks are reported only. Python is checked on its AST (comments and strings cannot trip it); C++
on its text with comments and string literals removed.
"""
from __future__ import annotations

import ast
import re
from typing import Callable

# torch functions and tensor methods that compute (as opposed to allocate, view or move)
COMPUTE = {
    "add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide", "floor_divide", "remainder", "fmod",
    "pow", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "abs", "neg", "reciprocal",
    "sin", "cos", "tan", "tanh", "sinh", "cosh", "asin", "acos", "atan", "atan2", "erf", "erfc", "sigmoid", "relu",
    "relu6", "gelu", "silu", "mish", "softplus", "elu", "selu", "leaky_relu", "hardswish", "hardsigmoid", "hardtanh",
    "softmax", "log_softmax", "layer_norm", "group_norm", "batch_norm", "instance_norm", "rms_norm", "normalize",
    "matmul", "mm", "bmm", "addmm", "baddbmm", "einsum", "linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
    "conv_transpose2d", "conv_transpose3d", "max_pool1d", "max_pool2d", "max_pool3d", "avg_pool1d", "avg_pool2d",
    "avg_pool3d", "adaptive_avg_pool2d", "sum", "mean", "prod", "max", "min", "amax", "amin", "argmax", "argmin",
    "var", "std", "norm", "cumsum", "cumprod", "logsumexp", "clamp", "clip", "where", "maximum", "minimum", "sort",
    "topk", "gather", "scatter", "scatter_add", "index_select", "masked_fill", "cross_entropy", "mse_loss",
    "nll_loss", "l1_loss", "smooth_l1_loss", "kl_div", "binary_cross_entropy", "dropout", "lerp", "addcmul",
    "addcdiv", "floor", "ceil", "round", "trunc", "sign", "eq", "ne", "lt", "le", "gt", "ge", "logical_and",
    "logical_or", "logical_not", "isnan", "isinf", "isfinite", "cat", "stack", "triu", "tril", "outer", "dot",
    "cross", "flip", "roll", "square",
}
NN_LAYERS = {"Linear", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d",
             "LayerNorm", "GroupNorm", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "InstanceNorm2d", "RMSNorm",
             "ReLU", "GELU", "SiLU", "Softmax", "LogSoftmax", "Sigmoid", "Tanh", "MaxPool1d", "MaxPool2d",
             "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d", "Embedding", "MultiheadAttention", "LSTM", "GRU",
             "Dropout", "Mish", "Hardswish", "ELU", "LeakyReLU", "Softplus"}
# extension module names (MultiKernelBench cheating_detection.py KERNEL_EXT_PATTERNS, plus NPUKernelBench's)
KERNEL_MODULES = re.compile(r"^(custom_ops_lib|kernel_gen_ops|cann_bench|custom_op|benchmark_ops|.*_ext|\w+_ascendc\w*|"
                            r"_C|ops)$")

Check = Callable[[str], "tuple[bool, str]"]


def _model_new(src: str) -> ast.ClassDef | None:
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return None
    return next((n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == "ModelNew"), None)


def _forward(cls: ast.ClassDef | None) -> ast.FunctionDef | None:
    if cls is None:
        return None
    return next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "forward"), None)


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return node.id if isinstance(node, ast.Name) else ""


def _extension_aliases(tree: ast.AST) -> set[str]:
    """Names an extension is imported under (`import custom_ops_lib as ops_lib`) or loaded into
    (`ops_lib = importlib.import_module(...)`), as MultiKernelBench's _find_extension_imports finds them."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {a.asname or a.name for a in node.names if KERNEL_MODULES.match(a.name.split(".")[-1])}
        elif (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and
              _dotted(node.value.func) in ("importlib.import_module", "import_module")):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return names


def _is_extension(head: str, aliases: set[str]) -> bool:
    return bool(head) and (head in aliases or KERNEL_MODULES.match(head) is not None)


def _kernel_call(call: ast.Call, aliases: set[str]) -> bool:
    name = _dotted(call.func)
    return name.startswith("torch.ops.") or ("." in name and _is_extension(name.split(".")[0], aliases))


def _names_extension(node: ast.AST, aliases: set[str]) -> bool:
    """`custom_ops_lib.add_custom` or `getattr(custom_ops_lib, NAME)`: a reference to an extension function."""
    if isinstance(node, ast.Attribute):
        return _is_extension(_dotted(node).split(".")[0], aliases)
    return (isinstance(node, ast.Call) and _dotted(node.func) == "getattr" and bool(node.args) and
            _is_extension(_dotted(node.args[0]), aliases))


def _calls_kernel(fwd: ast.FunctionDef, ext: set[str]) -> bool:
    """A kernel call in forward: direct, through `getattr(ext, name)(...)`, or through a local bound to
    either (`fn = getattr(custom_ops_lib, _FN); fn(*inputs)`, as MultiKernelBench's LLM4AscendC answers do)."""
    aliases = {t.id for n in ast.walk(fwd) if isinstance(n, ast.Assign) and _names_extension(n.value, ext)
               for t in n.targets if isinstance(t, ast.Name)}
    return any(isinstance(n, ast.Call) and (_kernel_call(n, ext) or _names_extension(n.func, ext) or
                                            (isinstance(n.func, ast.Name) and n.func.id in aliases))
               for n in ast.walk(fwd))


# Rationale: a ModelNew whose forward computes with torch (torch.relu, F.softmax, x.sum(), a @ b) can
# match the reference without running the kernel at all (MultiKernelBench PR #32, AscendOpGenAgent Type3).
def check_torch_compute(src: str) -> tuple[bool, str]:
    fwd = _forward(_model_new(src))
    if fwd is None:
        return False, ""
    ext = _extension_aliases(ast.parse(src))
    for node in ast.walk(fwd):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
            return True, f"line {node.lineno}: ModelNew.forward multiplies matrices with `@` in PyTorch"
        if isinstance(node, ast.Call) and not _kernel_call(node, ext):
            name = _dotted(node.func)
            last = name.rsplit(".", 1)[-1] if name else (node.func.attr if isinstance(node.func, ast.Attribute) else "")
            torchy = name.startswith(("torch.", "F.", "nn.functional.")) or isinstance(node.func, ast.Attribute)
            if last in COMPUTE and torchy and not name.startswith("math."):
                return True, f"line {node.lineno}: ModelNew.forward computes with PyTorch (`{name or last}(...)`)"
    return False, ""


def _is_layer(call: ast.AST) -> bool:
    if not isinstance(call, ast.Call):
        return False
    name = _dotted(call.func)
    return name.rsplit(".", 1)[-1] in NN_LAYERS and (name.startswith(("nn.", "torch.nn.")) or name in NN_LAYERS)


def _held_layers(cls: ast.ClassDef) -> dict[str, int]:
    """`self.<attr>` names assigned a torch.nn layer anywhere in the class -> the line that built it."""
    held: dict[str, int] = {}
    for node in ast.walk(cls):
        if isinstance(node, ast.Assign) and _is_layer(node.value):
            for t in node.targets:
                if isinstance(t, ast.Attribute) and _dotted(t.value) == "self":
                    held[t.attr] = node.lineno
    return held


# Rationale: a torch.nn layer that computes in ModelNew (`self.fc(x)`, `self.fc.forward(x)`,
# `nn.ReLU()(x)`) is the reference's own computation wearing a kernel's name. Holding parameters in a
# layer is not: MultiKernelBench's `ModelNew`s keep weights in nn.Linear / nn.Conv2d / nn.GroupNorm and
# hand `.weight` / `.bias` to the custom op. This follows MultiKernelBench utils/cheating_detection.py
# (@2192a6b): only code reachable from forward is checked and a `self.<module>(...)` call there is a
# violation; layers built in __init__ are not (the harness relaxed its nn-module ban after false positives).
def check_nn_layers(src: str) -> tuple[bool, str]:
    cls = _model_new(src)
    if cls is None:
        return False, ""
    held = _held_layers(cls)
    for fn in (n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name != "__init__"):
        for node in ast.walk(fn):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr in ("forward", "__call__"):
                func = func.value                       # self.fc.forward(x) is self.fc(x)
            if _is_layer(func):
                return True, f"line {node.lineno}: ModelNew.{fn.name} runs a torch.nn layer (`{_dotted(func.func)}(...)(...)`)"
            if isinstance(func, ast.Attribute) and _dotted(func.value) == "self" and func.attr in held:
                return True, (f"line {node.lineno}: ModelNew.{fn.name} calls the torch.nn layer `self.{func.attr}` "
                              f"(built on line {held[func.attr]}); hand its .weight/.bias to the kernel instead")
    return False, ""


# Rationale: a ModelNew that never calls the extension (custom_ops_lib / kernel_gen_ops / torch.ops /
# *_ext) cannot be testing the kernel (AscendOpGenAgent Type1/Type2).
def check_kernel_not_called(src: str) -> tuple[bool, str]:
    cls = _model_new(src)
    fwd = _forward(cls)
    if fwd is None:
        return (True, "no ModelNew.forward found") if "ModelNew" in src else (False, "")
    ext = _extension_aliases(ast.parse(src))
    if any(_calls_kernel(f, ext) for f in _reachable(src, cls, fwd)):   # type: ignore[arg-type]
        return False, ""
    return True, ("ModelNew.forward never calls the kernel extension (custom_ops_lib, kernel_gen_ops, torch.ops, *_ext), "
                  "directly or through the methods and functions it calls")


def _reachable(src: str, cls: ast.ClassDef, fwd: ast.FunctionDef) -> list[ast.FunctionDef]:
    """forward and every ModelNew method (`self.m(...)`) or module function (`f(...)`) it reaches, as
    MultiKernelBench's checker follows them."""
    methods = {n.name: n for n in cls.body if isinstance(n, ast.FunctionDef)}
    functions = {n.name: n for n in ast.parse(src).body if isinstance(n, ast.FunctionDef)}
    seen, todo = {id(fwd): fwd}, [fwd]
    while todo:
        for node in ast.walk(todo.pop()):
            if not isinstance(node, ast.Call):
                continue
            f = node.func
            target = (methods.get(f.attr) if isinstance(f, ast.Attribute) and _dotted(f.value) == "self" else
                      functions.get(f.id) if isinstance(f, ast.Name) else None)
            if target is not None and id(target) not in seen:
                seen[id(target)] = target
                todo.append(target)
    return list(seen.values())


# Rationale: Python loops over elements (`for i in range(x.numel()): y[i] = ...`, `.item()`/`.tolist()`
# in a loop) compute on the host, element by element, instead of on the NPU (AscendOpGenAgent Type4).
def check_python_loops(src: str) -> tuple[bool, str]:
    fwd = _forward(_model_new(src))
    if fwd is None:
        return False, ""
    for node in ast.walk(fwd):
        if isinstance(node, (ast.For, ast.AsyncFor)):
            iters, body = [node.iter], node.body
        elif isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            iters, body = [g.iter for g in node.generators], [getattr(node, "elt", None) or node.value]
        else:
            continue
        inner = [n for b in body for n in ast.walk(b)]
        per_item = any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("item", "tolist")
                       for n in inner)
        sized = any(isinstance(it, ast.Call) and _dotted(it.func) == "range" and
                    any(k in ast.dump(it) for k in ("numel", "shape", "'size'", "len")) for it in iters)
        if per_item or (sized and any(isinstance(n, ast.Subscript) for n in inner)):
            return True, f"line {node.lineno}: ModelNew.forward loops over tensor elements in Python"
    return False, ""


# Rationale: try/except in ModelNew.forward is the classic fallback: the kernel fails, torch answers.
def check_try_fallback(src: str) -> tuple[bool, str]:
    fwd = _forward(_model_new(src))
    for node in ast.walk(fwd) if fwd else ():
        if isinstance(node, ast.Try):
            return True, f"line {node.lineno}: ModelNew.forward catches exceptions (a fallback path around the kernel)"
    return False, ""


# Rationale: storing results on `self` in forward lets a later call return an earlier answer
# (KernelBench's result-reuse adversarial kernel).
def check_result_cache(src: str) -> tuple[bool, str]:
    fwd = _forward(_model_new(src))
    for node in ast.walk(fwd) if fwd else ():
        if isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Attribute) and _dotted(t.value) == "self" for t in targets):
                return True, f"line {node.lineno}: ModelNew.forward stores state on self (a result cache?)"
    return False, ""


def strip_cpp(src: str) -> str:
    src = re.sub(r"/\*.*?\*/", " ", src, flags=re.S)
    src = re.sub(r"//[^\n]*", " ", src)
    return re.sub(r'"(?:\\.|[^"\\])*"', '""', src)


_AT_COMPUTE = re.compile(r"\b(?:at|torch)::(?:native::)?(" + "|".join(sorted(COMPUTE, key=len, reverse=True)) + r")\s*\(")
_METHOD_COMPUTE = re.compile(r"\.\s*(" + "|".join(sorted(COMPUTE - {"max", "min", "sort", "round", "norm"}, key=len,
                                                            reverse=True)) + r")_?\s*\(")


# Rationale: `at::matmul`, `torch::relu` or `x.add(y)` in the binding computes the answer with ATen
# on the host side of the kernel (AscendOpGenAgent: "no at:: compute in pybind11.cpp").
def check_at_compute(src: str) -> tuple[bool, str]:
    code = strip_cpp(src)
    m = _AT_COMPUTE.search(code) or _METHOD_COMPUTE.search(code)
    if m:
        line = code[:m.start()].count("\n") + 1
        return True, f"line {line}: the binding computes with ATen (`{m.group(0).strip()}...`)"
    return False, ""


# Rationale: a binding that never launches a kernel (EXEC_NPU_CMD / aclnn / <<<>>> / *_launch /
# ACLRT_LAUNCH_KERNEL) returns something else.
def check_binding_launches(src: str) -> tuple[bool, str]:
    code = strip_cpp(src)
    if re.search(r"\bEXEC_NPU_CMD\b|\baclnn\w+\s*\(|<<<|\w+_launch\s*\(|\bACLRT_LAUNCH_KERNEL\b|\bc10_npu::", code):
        return False, ""
    return True, "the binding never launches a kernel (no EXEC_NPU_CMD, aclnn call, <<<>>> or *_launch)"


# CANN's own aclnn operators (the library, not an answer's kernel) that MultiKernelBench answers launch
CANN_BUILTIN_OPS = {"aclnnConvolution", "aclnnBatchNorm", "aclnnGroupNorm", "aclnnMean", "aclnnLayerNorm", "aclnnMatmul",
                    "aclnnMm", "aclnnBatchMatMul", "aclnnAdd", "aclnnMul", "aclnnSoftmax", "aclnnSum", "aclnnMaxPool",
                    "aclnnAvgPool2d", "aclnnRelu", "aclnnGelu", "aclnnSigmoid", "aclnnTanh", "aclnnExp", "aclnnLinear",
                    "aclnnConvDepthwise2d", "aclnnAffineGrid", "aclnnGridSampler2D", "aclnnUpsampleBilinear2dAA"}
_EXEC_OPS = re.compile(r"\bEXEC_NPU_CMD\s*\(\s*(\w+)")


def builtin_launches(src: str) -> list[str]:
    """The CANN builtin operators a binding's EXEC_NPU_CMDs launch."""
    return sorted({op for op in _EXEC_OPS.findall(strip_cpp(src)) if op in CANN_BUILTIN_OPS})


# Rationale: a binding whose every EXEC_NPU_CMD launches a CANN library operator (aclnnConvolution, ...) has the
# library compute the op; the answer's own kernel never runs (AscendOpGenAgent Type1, through the library).
def check_builtin_only(src: str) -> tuple[bool, str]:
    ops = _EXEC_OPS.findall(strip_cpp(src))
    if ops and all(op in CANN_BUILTIN_OPS for op in ops):
        return True, (f"the binding launches only CANN's own operators ({', '.join(sorted(set(ops)))}), never the "
                      "answer's kernel")
    return False, ""


# The public harness rule each check follows, named in every finding so an author can look it up.
RULES: dict[str, str] = {
    "check_torch_compute": "MultiKernelBench cheating_detection.py _forbidden_torch_ops (torch/F/tensor compute "
                           "reachable from forward); AscendOpGenAgent Type3",
    "check_nn_layers": "MultiKernelBench cheating_detection.py: a self.<module>(...) call in model code (here: any "
                       "ModelNew method but __init__); layers that only hold parameters are allowed",
    "check_kernel_not_called": "AscendOpGenAgent Type1/Type2 (MultiKernelBench's checker finds the calls the same "
                               "way, _kernel_calls_in_forward, but does not reject their absence)",
    "check_python_loops": "MultiKernelBench cheating_detection.py _scalar_for_loops; AscendOpGenAgent Type4",
    "check_try_fallback": "AscendOpGenAgent (a torch fallback around the kernel)",
    "check_result_cache": "KernelBench unit_tests/test_eval_adversarial.py (result reuse)",
    "check_at_compute": "AscendOpGenAgent: no at:: compute in pybind11.cpp",
    "check_binding_launches": "AscendOpGenAgent Type1 (the kernel is never launched)",
    "check_builtin_only": "AscendOpGenAgent Type1 (the kernel is never launched: CANN's library computes the op)",
}

STRICT_PY: list[Check] = [check_torch_compute, check_nn_layers, check_kernel_not_called, check_python_loops,
                          check_try_fallback]
WARN_PY: list[Check] = [check_result_cache]
STRICT_CPP: list[Check] = [check_at_compute, check_binding_launches, check_builtin_only]


def run_checks(model_src: str | None, bindings: dict[str, str], *, bindings_strict: bool = True,
               harness: str = "") -> tuple[list[str], list[str]]:
    """(strict findings, warnings), each `path: check: reason`. With `bindings_strict` off (a benchmark
    preset whose harness does not read the binding, named `harness`), the binding's findings are warnings
    that say so: the verdict follows the harness, the report tells the kernel engineer what ran in ATen."""
    strict, warn = [], []
    if model_src:
        for check in STRICT_PY + WARN_PY:
            flagged, reason = check(model_src)
            if flagged:
                (strict if check in STRICT_PY else warn).append(
                    f"ModelNew: {check.__name__}: {reason} [rule: {RULES[check.__name__]}]")
    for path, src in bindings.items():
        for check in STRICT_CPP:
            flagged, reason = check(src)
            if flagged and bindings_strict:
                strict.append(f"{path}: {check.__name__}: {reason} [rule: {RULES[check.__name__]}]")
            elif flagged:
                warn.append(f"{path}: {check.__name__}: {reason}: not the custom kernel's work (the kernel did not "
                            f"compute the whole op); {harness or 'the harness'} reads only ModelNew, so this does not "
                            f"fail the answer under its preset (`--tolerance default` fails it) "
                            f"[rule: {RULES[check.__name__]}]")
    return strict, warn
