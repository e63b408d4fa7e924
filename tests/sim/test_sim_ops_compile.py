"""Overload sets compile as on CANN 8.x, and misuse fails to compile: deduction failures where
CANN's signatures reject the call, dtype static_asserts with CANN's wording. Checked with both
supported compilers; with KW_CANN_ORACLE pointing at a script that syntax-checks a file against
real CANN headers, the same sources are checked there too."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import sim_harness_ops as h  # noqa: E402

HERE = Path(__file__).resolve().parent / "ops_compile"
COMPILERS = [c for c in ("clang++-16", "g++") if shutil.which(c)]
ORACLE = os.environ.get("KW_CANN_ORACLE")

PROLOGUE = """#include "kernel_operator.h"
using namespace AscendC;
void misuse(LocalTensor<half> h, LocalTensor<float> f, LocalTensor<uint8_t> m, LocalTensor<int32_t> i32,
            LocalTensor<int8_t> i8, LocalTensor<uint16_t> u16, const LogSoftMaxTiling& lt, const LayerNormTiling& lnt) {
"""

# (call, text expected in the diagnostics of our headers; None = any error). Calls marked as
# deduction failures are rejected by CANN's own signatures as well (oracle-checked).
DEDUCTION = [
    ("Select(h, m, h, 0.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, 256);", "Select"),
    ("CompareScalar(m, h, 1.0f, CMPMODE::GT, 256);", "CompareScalar"),
    ("CreateVecIndex(h[0], (half)0, 128, 1, 1, 8);", "CreateVecIndex"),
    ("Swish(h, h, (half)1.0, 128);", "Swish"),
    ("ClampMax(h, h, 1.0f, 128);", "ClampMax"),
    ("Floor(f, f);", "Floor"),
    ("Log(f, f, m, 64);", "Log"),
    ("LogSoftMax<float>(f[0], f, f, f, m, lt);", "LogSoftMax"),  # dst is a non-const reference
    ("LayerNorm<float>(f, f, f, f, f, f, 1e-5f, lnt);", "LayerNorm"),
    ("Tanh(h, f, 16);", "Tanh"),
    ("Power(f, f, 2, 64);", "Power"),
]
DTYPE = [
    ("Tanh(i32, i32, 64);", "Failed to check dtype in Tanh"),
    ("Compare(u16, h, h, CMPMODE::LT, 128);", "Failed to check dtype in Compare"),
    ("CompareScalar(i8, f, 1.0f, CMPMODE::LT, 64);", "Failed to check dtype in CompareScalar"),
    ("Select(i32, m, i32, i32, SELMODE::VSEL_TENSOR_TENSOR_MODE, 64);", "Failed to check dtype in Select"),
    ("ReduceSum(i32, i32, i32, 64);", "Failed to check dtype in ReduceSum"),
    ("uint32_t s[] = {8, 64}; ReduceSum<half, Pattern::Reduce::AR>(h, h, m, s, true);",
     "current api supports data type is float!"),
    ("uint32_t s[] = {8, 64}; ReduceMax<float, Pattern::Reduce::ARA>(f, f, m, s, true);", "it only supports AR/RA pattern"),
    ("WholeReduceSum(i32, i32, 64, 1, 1, 1, 8);", "Failed to check dtype in WholeReduceSum"),
    ("BlockReduceMax(i32, i32, 1, 64, 1, 1, 8);", "Failed to check dtype in BlockReduceMax"),
    ("Brcb(i8, i8, 1, BrcbRepeatParams(1, 8));", "Failed to check dtype in Brcb"),
    ("uint64_t c; GatherMask(f, f, u16, false, 0, GatherMaskParams(), c);", "Failed to check dtype in GatherMask"),
    ("Copy(i8, i8, (uint64_t)32, 1, CopyRepeatParams());", "Failed to check dtype in Copy"),
    ("Transpose(f, f);", "Failed to check dtype in Transpose"),
    ("CreateVecIndex(u16, (uint16_t)0, 64);", "Failed to check dtype in CreateVecIndex"),
    ("SumParams p{1, 8, 8}; Sum(i32, i32, p);", "Failed to check dtype in Sum"),
]


def _syntax(compiler: str, source: str) -> tuple[bool, str]:
    return h.compile_check(source, compiler)


@pytest.mark.skipif(not COMPILERS, reason="no C++ compiler")
@pytest.mark.parametrize("compiler", COMPILERS)
@pytest.mark.parametrize("name", ["accept_basic.cpp", "accept_highlevel.cpp"])
def test_overload_sets_compile(compiler, name):
    ok, err = _syntax(compiler, (HERE / name).read_text())
    assert ok, err


@pytest.mark.skipif(not COMPILERS, reason="no C++ compiler")
@pytest.mark.parametrize("compiler", COMPILERS)
@pytest.mark.parametrize("call,expect", DEDUCTION + DTYPE)
def test_misuse_does_not_compile(compiler, call, expect):
    ok, err = _syntax(compiler, PROLOGUE + "    " + call + "\n}\n")
    assert not ok
    assert expect in err, err[-2000:]


def _oracle(source: str) -> subprocess.CompletedProcess:
    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / "k.cpp"
        f.write_text(source)
        return subprocess.run(["bash", ORACLE, str(f)], capture_output=True, text=True)


@pytest.mark.cann
@pytest.mark.skipif(not ORACLE, reason="set KW_CANN_ORACLE to a CANN syntax-check script")
@pytest.mark.parametrize("name", ["accept_basic.cpp", "accept_highlevel.cpp"])
def test_cann_accepts_the_same_overloads(name):
    p = _oracle((HERE / name).read_text())
    assert p.returncode == 0, p.stderr[-3000:]


@pytest.mark.cann
@pytest.mark.skipif(not ORACLE, reason="set KW_CANN_ORACLE to a CANN syntax-check script")
@pytest.mark.parametrize("call,expect", DEDUCTION)
def test_cann_rejects_the_same_calls(call, expect):
    p = _oracle(PROLOGUE + "    " + call + "\n}\n")
    assert p.returncode != 0 and "no matching function" in p.stderr


HOST_CHECK_SUPPORT = r'''
#include "register/op_def_registry.h"
static ge::graphStatus CheckSupported(const ge::Operator& op, ge::AscendString& result) {
    ge::Shape x = op.GetInputDescByName("x").GetShape();
    int64_t dim = 0;
    if (op.GetAttr("seq_dim", dim) != ge::GRAPH_SUCCESS) return ge::GRAPH_NOT_CHANGED;
    result = ge::AscendString(x.GetDimNum() ? "{}" : "");
    return ge::GRAPH_SUCCESS;
}
namespace ops {
class Rev : public OpDef {
public:
    explicit Rev(const char* name) : OpDef(name) {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->AICore().SetCheckSupport(CheckSupported);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(Rev);
}
'''


@pytest.mark.skipif(not COMPILERS, reason="no C++ compiler")
def test_host_check_support_callback_compiles():
    """NPUKernelBench ReverseSequence registers a check-support callback on ge::Operator (GRAPH_NOT_CHANGED)."""
    ok, err = _syntax(COMPILERS[0], HOST_CHECK_SUPPORT)
    assert ok, err


HOST_REGISTRATIONS = r'''
#include "register/op_def_registry.h"
#include "exe_graph/runtime/infer_shape_range_context.h"
static ge::graphStatus Range4Op(gert::InferShapeRangeContext* context) {
    const gert::Range<gert::Shape>* x = context->GetInputShapeRange(0);
    gert::Range<gert::Shape>* y = context->GetOutputShapeRange(0);
    if (x == nullptr || y == nullptr || y->GetMax() == nullptr) return ge::GRAPH_FAILED;
    y->GetMax()->SetDimNum(x->GetMax()->GetDimNum());
    *y = gert::Range<gert::Shape>(y->GetMin(), y->GetMax());
    return ge::GRAPH_SUCCESS;
}
static ge::graphStatus Tiling4Op(gert::TilingContext*) { return ge::GRAPH_SUCCESS; }
static ge::graphStatus Shape4Op(gert::InferShapeContext*) { return ge::GRAPH_SUCCESS; }
namespace optiling {
IMPL_OP_OPTILING(TopKLike).Tiling(Tiling4Op).TilingInputsDataDependency({1});
IMPL_OP_OPTILING(TopKLike2).Tiling(Tiling4Op).TilingInputsDataDependency({1}, {gert::TILING_ON_HOST});
}
namespace ops {
IMPL_OP_INFERSHAPE(TopKLike).InferShape(Shape4Op).InputsDataDependency({1}).InferShapeRange(Range4Op);
}
'''


@pytest.mark.skipif(not COMPILERS, reason="no C++ compiler")
def test_host_registrations_with_braced_lists_and_shape_ranges_compile():
    """NPUKernelBench TopKV3 registers `.TilingInputsDataDependency({1})` / `.InputsDataDependency({1})` and
    LayerNormV4 defines an InferShapeRange function (CANN 8.x op_impl_registry.h / range.h signatures)."""
    ok, err = _syntax(COMPILERS[0], HOST_REGISTRATIONS)
    assert ok, err
