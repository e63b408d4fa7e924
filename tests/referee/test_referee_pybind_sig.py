"""The functions an answer's pybind source exports, with their C++ parameter names and EXEC_NPU_CMD
arguments (what a stand-in extension module for ModelNew is built from)."""
from kernelwright.tools.referee.pybind_sig import bound_functions

BIND = r'''
#include <torch/extension.h>
// m.def("commented_out", &gemm_impl_npu);
at::Tensor gemm_impl_npu(const at::Tensor& x, const at::Tensor &weight, c10::optional<at::Tensor> bias,
                         double alpha = 1.0, std::vector<int64_t> dims = {1, 2}) {
    at::Tensor y = at::empty({x.size(0), weight.size(0)}, x.options());
    EXEC_NPU_CMD(aclnnGemmCustom, x, weight, bias, alpha, y);
    return y;
}

std::tuple<at::Tensor, at::Tensor> two_impl(const at::Tensor& a) {
    at::Tensor p = at::empty_like(a), q = at::empty_like(a);
    EXEC_NPU_CMD(aclnnTwo, a, p, q);
    return {p, q};
}

at::Tensor helper(int) { return at::Tensor(); }

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("gemm_custom", &gemm_impl_npu, "gemm (x, w, b)");
    m.def("two_custom", &two_impl);
    m.def("unnamed", &helper);
    m.def("missing", &not_defined_here);
}
'''


def test_signatures_and_launch_arguments_are_read():
    fns = bound_functions(BIND)
    assert set(fns) == {"gemm_custom", "two_custom"}       # unnamed parameters and undefined functions are left out
    gemm = fns["gemm_custom"]
    assert gemm.cpp == "gemm_impl_npu" and gemm.params == ["x", "weight", "bias", "alpha", "dims"]
    assert gemm.exec_op == "aclnnGemmCustom" and gemm.exec_args == ["x", "weight", "bias", "alpha", "y"]
    assert fns["two_custom"].params == ["a"] and fns["two_custom"].exec_args == ["a", "p", "q"]


def test_a_source_without_bindings_reads_as_none():
    assert bound_functions("int main() { return 0; }") == {}
    assert bound_functions('m.def("f", &f); at::Tensor f(const at::Tensor& x') == {}   # unbalanced: left out
