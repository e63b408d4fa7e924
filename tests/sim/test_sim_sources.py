"""Source preparation and compiler-output parsing (no compiler needed)."""
from pathlib import Path

from kernelwright.tools.buildkit.diagnostics import PathMapper, categorize, parse
from kernelwright.tools.buildkit.sources import dtype_variants, strip_asc_host
from kernelwright.tools.opspec import OpParam, OpSpec
from kernelwright.tools.sim.sources import rewrite_launches, tiling_header


def test_launch_rewrite_keeps_arguments_and_lines():
    src = "void f(uint8_t* x) {\n  add_custom<<<8, nullptr, stream>>>(x, y, z);\n  k2<<<n,\n 0, s>>>();\n}\n"
    out = rewrite_launches(src)
    assert "kw::launch_kernel(add_custom, 8, nullptr, stream, x, y, z);" in out
    assert "kw::launch_kernel(k2, n,\n 0, s);" in out
    assert out.count("\n") == src.count("\n")
    assert "<<<" not in out


def test_asc_host_section_is_dropped_but_lines_kept():
    src = "kernel code\n// ===== ASCEND_HOST_SECTION =====\n#include <torch/extension.h>\nat::Tensor f();\n"
    out = strip_asc_host(src)
    assert "torch" not in out and out.startswith("kernel code\n") and out.count("\n") == src.count("\n")


def test_clang_error_inside_our_header_points_at_the_user_call(tmp_path):
    src, inc = tmp_path / "src", tmp_path / "include"
    (src / "op_kernel").mkdir(parents=True)
    inc.mkdir()
    output = (
        f"{inc}/kw/vec_elementwise.h:12:1: error: static assertion failed: Failed to check dtype in Exp\n"
        f"{src}/op_kernel/k.cpp:40:9: note: in instantiation of function template specialization 'AscendC::Exp<int>' requested here\n"
        f"{src}/op_kernel/k.cpp:51:5: error: no matching function for call to 'Adds'\n"
        f"{inc}/kw/vec_engine.h:200:17: note: candidate template ignored: deduced conflicting types for parameter 'T' ('_Float16' vs. 'float')\n"
        f"{src}/op_kernel/k.cpp:60:14: error: no member named 'Softmax' in namespace 'AscendC'\n"
        "2 errors generated.\n")
    diags = parse(output, PathMapper(src, inc))
    assert [(d.file, d.line) for d in diags] == [("op_kernel/k.cpp", 40), ("op_kernel/k.cpp", 51), ("op_kernel/k.cpp", 60)]
    assert [d.category for d in diags] == ["data_type", "data_type", "api_signature"]
    assert diags[1].symbol == "Adds" and diags[2].symbol == "Softmax"
    assert "'half' vs. 'float'" in diags[1].notes[0]  # bisheng's spelling of the type
    assert diags[0].notes[0].startswith("at <kernelwright>/kw/vec_elementwise.h:12")


def test_gcc_messages_and_categories(tmp_path):
    output = (f"{tmp_path}/k.cpp: In member function 'void K::Init()':\n"
              f"{tmp_path}/k.cpp:7:3: error: 'FooBar' is not a member of 'AscendC'\n"
              f"{tmp_path}/k.cpp:9:20: error: cannot bind non-const lvalue reference of type 'LocalTensor<half>&' to an rvalue\n"
              f"{tmp_path}/k.cpp:11:1: error: expected ';' before '}}' token\n"
              f"{tmp_path}/k.cpp:12:5: error: 'tileNum' was not declared in this scope\n")
    diags = parse(output, PathMapper(tmp_path, Path("/nonexistent")))
    assert [d.category for d in diags] == ["api_signature", "memory_object", "syntax_structure", "scope_lifetime"]
    assert diags[0].symbol == "FooBar" and diags[3].symbol == "tileNum"


def test_categorize_uses_notes_for_type_conflicts():
    assert categorize("no matching function for call to 'Add'", ["candidate template ignored: deduced conflicting types"]) == "data_type"
    assert categorize("no matching function for call to 'Add'", ["requires 4 arguments, but 3 were provided"]) == "api_signature"
    assert categorize("'kernel_operator.h' file not found", []) == "macro_preprocessing"


def test_tiling_header_reproduces_the_host_layout():
    classes = [{"op_type": "AddCustom", "class": "AddTiling", "size": 24, "fields": [
        {"name": "flag", "ctype": "uint8_t", "offset": 0, "elem_size": 1, "count": 1, "struct_type": "", "struct_size": 0},
        {"name": "n", "ctype": "int64_t", "offset": 8, "elem_size": 8, "count": 1, "struct_type": "", "struct_size": 0},
        {"name": "dims", "ctype": "uint16_t", "offset": 16, "elem_size": 2, "count": 3, "struct_type": "", "struct_size": 0}]}]
    h = tiling_header("AddCustom", classes)
    assert "uint8_t kw_pad0[7];" in h and "uint16_t dims[3];" in h and "uint8_t kw_tail[2];" in h
    assert "static_assert(sizeof(AddTiling) == 24" in h and "#define KW_DEFAULT_TILING_TYPE AddTiling" in h


def test_dtype_variants_follow_the_opdef_columns():
    op = OpSpec(inputs=[OpParam(name="x", dtypes=["float16", "float32", "bfloat16"])],
                outputs=[OpParam(name="y", dtypes=["float16", "float32", "bfloat16"])])
    assert dtype_variants(op) == [{"DTYPE_X": "half", "DTYPE_Y": "half"}, {"DTYPE_X": "float", "DTYPE_Y": "float"},
                                  {"DTYPE_X": "bfloat16_t", "DTYPE_Y": "bfloat16_t"}]


def test_msopgen_host_wrappers_lose_their_launches():
    from kernelwright.tools.buildkit.sources import drop_launches
    src = "void f_do(uint32_t b, void* s, uint8_t* x) {\n  f<<<b, nullptr,\n s>>>(x, g(x),\n x);\n  h();\n}\n"
    out = drop_launches(src)
    assert "<<<" not in out and "((void)0)" in out and "h();" in out and out.count("\n") == src.count("\n")


def test_direct_includes_of_cann_internal_headers_get_forwarding_stubs(tmp_path):
    from kernelwright.tools.sim.runtime_lib import INCLUDE_DIR
    from kernelwright.tools.sim.sources import cann_header_stubs
    files = {"k.cpp": '#include "lib/math/kernel_operator_asin_intf.h"\n#include "lib/not/a_real_header.h"\n'
                      '#include "lib/sigmoid/kernel_operator_sigmoid_intf.h"\n',
             "op_host/t.h": '#include "tiling/tiling_api.h"\n#include "lib/activation/softmax_tiling.h"\n'}
    cann_header_stubs(files, INCLUDE_DIR, tmp_path)
    assert (tmp_path / "lib/math/kernel_operator_asin_intf.h").read_text().endswith('"kernel_operator.h"\n')
    assert 'tiling/tiling_api.h' in (tmp_path / "lib/activation/softmax_tiling.h").read_text()
    assert (tmp_path / "lib/sigmoid/kernel_operator_sigmoid_intf.h").is_file()  # a compatibility link CANN installs
    assert not (tmp_path / "lib/not").exists()          # unknown paths stay errors, as on CANN
    assert not (tmp_path / "tiling/tiling_api.h").exists()  # ours exists already


def test_kernel_units_see_orig_dtype_macros_comparable_with_dt_values():
    from kernelwright.tools.sim.sources import msopgen_prologue
    op = OpSpec(inputs=[OpParam(name="grads", dtypes=["float16", "float32"])])
    half, flt = dtype_variants(op, orig=True)
    assert half == {"DTYPE_GRADS": "half", "ORIG_DTYPE_GRADS": "DT_FLOAT16"}
    text = msopgen_prologue(Path("kw_tiling.h"), half)
    # `#if ORIG_DTYPE_GRADS != DT_FLOAT` must see integers on both sides, as on CANN
    assert "#define ORIG_DTYPE_GRADS 1\n" in text and "#define DT_FLOAT 0\n" in text and "#define DT_BF16 27\n" in text
    assert "ORIG_DTYPE" not in msopgen_prologue(Path("kw_tiling.h"), dtype_variants(op)[0])
