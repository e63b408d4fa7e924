"""Default glue for an msopgen operator, for `--generate-glue`: an aclnn binding
(EXEC_NPU_CMD + pybind, as MultiKernelBench's CppExtension expects) and a ModelNew that calls it.
Made from the operator prototype; outputs are allocated like the first input, which is right for
elementwise operators only, and the generated code says so."""
from __future__ import annotations

from kernelwright.tools.formats.base import FormatError
from kernelwright.tools.formats.templates import render_template
from kernelwright.tools.opspec import OpSpec

_CPP_ATTR = {"int": "int64_t", "float": "double", "bool": "bool", "string": "std::string",
             "list_int": "at::IntArrayRef", "list_float": "at::ArrayRef<double>", "list_bool": "at::ArrayRef<bool>"}


def default_glue(op: str, py_name: str, spec: OpSpec, module: str = "custom_ops_lib") -> dict[str, str]:
    if not spec.inputs or not spec.outputs:
        raise FormatError(f"cannot generate glue for {op}: the prototype has {len(spec.inputs)} inputs and "
                          f"{len(spec.outputs)} outputs (need at least one of each)")
    odd = [a.name for a in spec.attrs if a.type not in _CPP_ATTR]
    if odd:
        raise FormatError(f"cannot generate glue for {op}: attributes {', '.join(odd)} have types the generator "
                          f"does not map ({', '.join(sorted(_CPP_ATTR))}); write bind/op.cpp by hand")
    params = [f"const at::Tensor& {p.name}" for p in spec.inputs] + [f"{_CPP_ATTR[a.type]} {a.name}" for a in spec.attrs]
    outputs = [p.name for p in spec.outputs]
    tuple_type = f"std::tuple<{', '.join(['at::Tensor'] * len(outputs))}>"
    bind = render_template(
        "glue_aclnn_bind.cpp.j2", op=op, py_name=py_name, fn=f"{py_name}_impl_npu", params=", ".join(params),
        outputs=outputs, first=spec.inputs[0].name,
        args=", ".join([p.name for p in spec.inputs] + [a.name for a in spec.attrs] + outputs),
        ret="at::Tensor" if len(outputs) == 1 else tuple_type,
        result=outputs[0] if len(outputs) == 1 else f"{tuple_type}({', '.join(outputs)})")
    attrs = [{"name": a.name, "default": repr(a.default)} for a in spec.attrs]
    model = render_template(
        "glue_model_new.py.j2", module=module, py_name=py_name, attrs=attrs, inputs=[p.name for p in spec.inputs],
        call=", ".join([p.name for p in spec.inputs] + [f"self.{a.name}" for a in spec.attrs]))
    return {"bind/op.cpp": bind, "model_new.py": model}
