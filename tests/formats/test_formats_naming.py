"""Operator names: sanitising (digit-leading and odd task names), the MultiKernelBench
<Op>Custom convention, renaming that touches only the operator's own name, the OpDef reader and
the Python literal writer."""
from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import formats_fixtures as fx  # noqa: E402

from kernelwright.tools.formats import loads, render  # noqa: E402
from kernelwright.tools.formats.naming import mkb_name, rename_op  # noqa: E402
from kernelwright.tools.formats.opdef import read_opdef  # noqa: E402
from kernelwright.tools.formats.pystrings import literal  # noqa: E402
from kernelwright.tools.project import KernelProject, ProjectError, is_op_type_name, op_type_name, snake_case  # noqa: E402


@pytest.mark.parametrize("raw,op,snake", [
    ("relu", "Relu", "relu"), ("10_relu", "Op10Relu", "op10_relu"), ("leaky-relu 2", "LeakyRelu2", "leaky_relu2"),
    ("add.v2", "AddV2", "add_v2"), ("AddCustom", "AddCustom", "add_custom"), ("3d_conv", "Op3dConv", "op3d_conv"),
    ("layer_norm", "LayerNorm", "layer_norm"), ("ß_sum", "Sum", "sum"),
])
def test_op_type_name_is_valid_and_round_trips_through_snake_case(raw, op, snake):
    assert op_type_name(raw) == op and is_op_type_name(op) and snake_case(op) == snake
    assert op_type_name(snake) == op and mkb_name(op) == op + ("" if op.endswith("Custom") else "Custom")


def test_op_type_name_edge_cases():
    assert op_type_name("--") == "Op" and op_type_name("and") == "AndOp"   # C++ keyword as kernel name


def test_mkb_export_under_a_digit_leading_task_name():
    rendered = render(fx.msopgen_project().model_copy(update={"glue": {"bind/op.cpp": fx.BIND, "model_new.py": fx.MODEL}}),
                      "mkb", name="10_scaled_sub")
    back = loads(next(iter(rendered.files.values())))
    assert back.name == "Op10ScaledSubCustom" and "op_kernel/op10_scaled_sub_custom.cpp" in back.files
    assert "void op10_scaled_sub_custom(" in back.files["op_kernel/op10_scaled_sub_custom.cpp"]


def test_digit_leading_op_in_an_answer_is_sanitised():
    """MultiKernelBench issue #38: `10_relu` -> op `10ReluCustom`, which C++ and msopgen refuse."""
    bad = {k: v.replace("ScaledSub", "10ScaledSubCustom").replace("scaled_sub", "10_scaled_sub_custom")
           for k, v in {"project_json_src": fx.OP_JSON, "host_tiling_src": fx.TILING_H,
                        "host_operator_src": fx.HOST, "kernel_src": fx.KERNEL}.items()}
    project = loads("".join(f"{k} = {v!r}\n" for k, v in bad.items()), "answer.py")
    assert project.name == "Op10ScaledSubCustom"
    assert sorted(project.files) == ["op_host/op10_scaled_sub_custom.cpp", "op_host/op10_scaled_sub_custom_tiling.h",
                                     "op_kernel/op10_scaled_sub_custom.cpp"]
    host = project.files["op_host/op10_scaled_sub_custom.cpp"]
    assert "OP_ADD(Op10ScaledSubCustom)" in host and "class Op10ScaledSubCustom : public OpDef" in host
    assert '#include "op10_scaled_sub_custom_tiling.h"' in host
    assert "void op10_scaled_sub_custom(" in project.files["op_kernel/op10_scaled_sub_custom.cpp"]


def test_rename_touches_only_the_operator_name():
    kernel = '''#include "kernel_operator.h"
extern "C" __global__ __aicore__ void add(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling) {
    AscendC::Add(zl, xl, yl, n); float add = 1.0f; Add(a, b, c, n);
}
#ifndef ASCENDC_CPU_DEBUG
void add_do(uint32_t b, void* s, uint8_t* x) { add<<<b, nullptr, s>>>(x); }
#endif
'''
    host = ('#include "add_tiling.h"\nREGISTER_TILING_DATA_CLASS(Add, AddTilingData)\nREGISTER_TILING_DATA_CLASS(Add_1, AddTilingData)\n'
            'namespace ops { class Add : public OpDef { public: explicit Add(const char* name) : OpDef(name) {} }; OP_ADD(Add); }\n')
    bind = 'EXEC_NPU_CMD(aclnnAdd, x, y, z); m.def("add", &add_impl_npu); // aclnnAddGetWorkspaceSize\n'
    project = KernelProject(name="Add", kind="msopgen", files={"op_kernel/add.cpp": kernel, "op_host/add.cpp": host,
                                                                "op_host/add_tiling.h": "// t\n"},
                            glue={"bind/op.cpp": bind, "model_new.py": "return custom_ops_lib.add(a, b)\n"})
    renamed = rename_op(project, "AddCustom")
    k = renamed.files["op_kernel/add_custom.cpp"]
    assert "void add_custom(GM_ADDR x" in k and "AscendC::Add(zl" in k and "float add = 1.0f; Add(a, b, c, n);" in k
    assert "add_custom<<<b, nullptr, s>>>(x)" in k and "void add_do(" in k
    h = renamed.files["op_host/add_custom.cpp"]
    assert h.count("AddCustom") == 5 and "AddTilingData" in h and '"add_custom_tiling.h"' in h and "AddCustom_1" in h
    assert renamed.glue["bind/op.cpp"] == ('EXEC_NPU_CMD(aclnnAddCustom, x, y, z); m.def("add_custom", &add_impl_npu); '
                                           '// aclnnAddCustomGetWorkspaceSize\n')
    assert renamed.glue["model_new.py"] == "return custom_ops_lib.add_custom(a, b)\n"
    assert rename_op(renamed, "Add").files == project.files


def test_read_opdef_forms():
    host = '''
class Foo : public OpDef {
    explicit Foo(const char* name) : OpDef(name) {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_BF16, ge::DT_INT32}).Format({ge::FORMAT_ND, ge::FORMAT_NCHW});
        this->Input("mask")
            .ParamType(OPTIONAL)
            .DataType({ge::DT_BOOL, ge::DT_BOOL});
        this->Output("y").ParamType(REQUIRED).DataType(kTypes);
        this->Attr("eps").AttrType(OPTIONAL).Float(1e-5f);
        this->Attr("axes").AttrType(REQUIRED).ListInt({-1, 2});
        this->Attr("keep").Bool(true);
        this->Attr("mode").String("mean");
        this->Attr("n").Int(3);
    }
};
'''
    name, spec = read_opdef(host)
    assert name == "Foo"
    assert [(p.name, p.param_type, p.dtypes, p.formats) for p in spec.inputs] == [
        ("x", "required", ["bfloat16", "int32"], ["ND", "NCHW"]), ("mask", "optional", ["bool", "bool"], ["ND", "ND"])]
    assert spec.outputs[0].dtypes == []                                   # held in a variable: unknown
    assert [(a.name, a.type, a.param_type, a.default) for a in spec.attrs] == [
        ("eps", "float", "optional", 1e-5), ("axes", "list_int", "required", [-1, 2]), ("keep", "bool", "optional", True),
        ("mode", "string", "optional", "mean"), ("n", "int", "optional", 3)]
    assert read_opdef("int main() {}") is None


def test_mkb_names_the_ops_whose_dtypes_it_cannot_read():
    project = fx.msopgen_project().model_copy(update={"files": fx.msopgen_project().files | {
        "op_host/scaled_sub.cpp": fx.HOST.replace('this->Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16})',
                                                  'this->Output("z").ParamType(REQUIRED).DataType(types)')}})
    with pytest.raises(ProjectError, match=r"the dtypes of z could not be read from the OpDef"):
        render(project, "mkb", generate_glue=False)


@pytest.mark.parametrize("text", ["plain\n", "a\\nb\n", 'x"""y\n', "x'''y\"\"\"z\\\n", 'ends with quote"', "crlf\r\nline",
                                  "\\", "nul\x00and\x1b", "{braces} and \\t\n", "é中文\n", ""])
def test_literal_reads_back_exactly(text):
    assert ast.literal_eval(literal(text)) == text


def test_own_headers_are_inlined_for_fixed_file_formats():
    """NPUKernelBench answers split kernels into headers; the three-file formats get them pasted in."""
    cls_start = fx.KERNEL.index("template <typename T>")
    cls_end = fx.KERNEL.index('extern "C"')
    header = "#pragma once\n#include \"kernel_operator.h\"\n" + fx.KERNEL[cls_start:cls_end]
    kernel = fx.KERNEL[:cls_start] + '#include "scaled_sub_impl.h"\n#include "scaled_sub_impl.h"\n' + fx.KERNEL[cls_end:]
    base = fx.msopgen_project()
    project = base.model_copy(update={"files": base.files | {"op_kernel/scaled_sub.cpp": kernel,
                                                                  "op_kernel/scaled_sub_impl.h": header}})
    for fmt in ("npukb", "mkb"):
        rendered = render(project, fmt, generate_glue=True)
        assert any("inlined op_kernel/scaled_sub_impl.h into op_kernel/scaled_sub" in n for n in rendered.notes)
        back = loads(next(iter(rendered.files.values())))
        (path,) = [p for p in back.files if p.startswith("op_kernel/")]
        text = back.files[path]
        assert "class KernelScaledSub" in text and text.count("class KernelScaledSub") == 1
        assert "// scaled_sub_impl.h: already inlined above" in text and '#include "scaled_sub_impl.h"' not in text
