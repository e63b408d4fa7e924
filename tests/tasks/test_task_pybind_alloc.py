"""The stand-in extension reads what a pybind function does before its EXEC_NPU_CMD: local sizes (with C++
integer division and ternaries) and the outputs it allocates, so ModelNew's call hands the operator outputs
of the shapes and dtypes the answer's binding makes. What does not translate stays unknown, never a crash."""
import torch

from kernelwright.tools.tasks.pybind_alloc import UNKNOWN, evaluate, value_of

PRELUDE = r'''
    TORCH_CHECK(x.dim() == 4, "x must be NCHW");
    const int64_t N = x.size(0);
    constexpr int64_t PAD = 1;
    const int64_t Hout = (x.size(2) + 2 * PAD - weight.size(2)) / 2 + 1;   // C++ division truncates
    const int64_t pooled = Hout < pool ? 0 : (Hout - pool) / pool + 1;
    at::Tensor bias;
    if (bias_opt.has_value()) { bias = bias_opt.value(); } else { bias = at::zeros({weight.size(0)}, x.options()); }
    at::Tensor y = at::empty({N, weight.size(0), pooled, pooled}, x.options().dtype(at::kHalf));
    at::Tensor p = at::empty_like(x), q = at::zeros_like(x, at::kInt);
    auto sizes = x.sizes().vec();
    sizes[1] = 7;
    auto z = at::empty(sizes, x.options());
    auto e = x.expand({2, 3, 9, 9}).contiguous();
    auto weird = some_helper(x, 3);
'''


def test_outputs_and_sizes_as_the_binding_computes_them():
    got = evaluate(PRELUDE, {"x": torch.zeros(2, 1, 9, 9), "weight": torch.zeros(5, 1, 3, 3), "pool": 2,
                             "bias_opt": None})
    assert got["N"] == 2 and got["Hout"] == 5 and got["pooled"] == 2
    assert got["y"].shape == (2, 5, 2, 2) and got["y"].dtype == torch.float16
    assert got["p"].shape == (2, 1, 9, 9) and got["q"].dtype == torch.int32
    assert got["z"].shape == (2, 7, 9, 9) and got["e"].shape == (2, 3, 9, 9)
    assert "weird" not in got                              # a helper the file does not define
    assert got["bias"].shape == (5,) and not got["bias"].any()   # the else branch: ModelNew passed no bias
    with_bias = evaluate(PRELUDE, {"x": torch.zeros(2, 1, 9, 9), "weight": torch.zeros(5, 1, 3, 3), "pool": 2,
                                   "bias_opt": torch.ones(5)})
    assert with_bias["bias"].sum() == 5


def test_exec_arguments_by_name_by_expression_or_unknown():
    scope = evaluate(PRELUDE, {"x": torch.zeros(2, 1, 9, 9), "weight": torch.zeros(5, 1, 3, 3), "pool": 2,
                               "bias_opt": None})
    assert value_of("x.contiguous()", scope).shape == (2, 1, 9, 9)
    assert value_of("nullptr", scope) is None and value_of("N * 2", scope) == 4
    assert value_of("weird", scope) is UNKNOWN and value_of("x->data()", scope) is UNKNOWN


def test_the_files_own_helpers_and_constants_are_followed():
    from kernelwright.tools.referee.pybind_sig import bound_functions
    src = r'''
    static constexpr int64_t kStride = 2;
    static inline int64_t out_len(int64_t in, int64_t k, int64_t stride) {
        const int64_t eff = k - 1;
        return (in - eff - 1) / stride + 1;
    }
    at::Tensor run_impl(const at::Tensor& x, const at::Tensor& w) {
        auto shape = std::vector<int64_t>{x.size(0), out_len(x.size(1), w.size(0), kStride)};
        at::Tensor y = at::empty(shape, x.options());
        EXEC_NPU_CMD(aclnnRunCustom, x, w, y);
        return y;
    }
    PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("run_custom", &run_impl); }
    '''
    fn = bound_functions(src)["run_custom"]
    assert list(fn.helpers) == ["out_len"] and "kStride" in fn.constants
    got = evaluate(fn.prelude, {"x": torch.zeros(3, 11), "w": torch.zeros(3)}, fn.helpers, fn.constants)
    assert got["y"].shape == (3, 5)
