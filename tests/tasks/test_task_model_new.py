"""MultiKernelBench's contract: ModelNew(*init_inputs)(*inputs) under the seed Model was built with, its
extension stood in for by functions with the pybind source's signatures that hand the operator's named
arguments to the backend. A GEMM answer whose ModelNew holds nn.Linear weights is judged with those weights."""
import pytest
import torch

from kernelwright.tools.referee.pybind_sig import bound_functions
from kernelwright.tools.tasks.model_new import run_model_new

BIND = r'''
at::Tensor gemm_impl_npu(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias) {
    at::Tensor y = at::empty({x.size(0), weight.size(0)}, x.options());
    EXEC_NPU_CMD(aclnnGemmCustom, x, weight, bias, y);
    return y;
}
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("gemm_custom", &gemm_impl_npu, "x @ weight.T + bias"); }
'''

MODEL_NEW = '''
import torch
import torch_npu
import custom_ops_lib


class ModelNew(torch.nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.gemm = torch.nn.Linear(in_features, out_features)   # a parameter container, as in MultiKernelBench

    def forward(self, x):
        return custom_ops_lib.gemm_custom(x, self.gemm.weight, self.gemm.bias)
'''

SEED, INIT = 42, [16, 8]


class Model(torch.nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.gemm = torch.nn.Linear(in_features, out_features)

    def forward(self, x):
        return self.gemm(x)


class GemmBackend:
    """Stands in for the chosen backend: runs the operator the binding launches on the named arguments."""

    def __init__(self):
        self.seen = []

    def __call__(self, fn, named):
        assert fn.exec_op == "aclnnGemmCustom"
        self.seen.append(named)
        x, w, b = (named[n].numpy() for n in fn.exec_args[:3])
        return torch.from_numpy(x @ w.T + b)


def reference(x):
    torch.manual_seed(SEED)
    return Model(*INIT)(x)


@pytest.fixture
def x():
    return torch.randn(4, 16, generator=torch.Generator().manual_seed(7))


def test_a_gemm_answer_is_judged_with_the_weights_its_modelnew_holds(x):
    backend = GemmBackend()
    run = run_model_new(MODEL_NEW, init=INIT, inputs=[x], functions=bound_functions(BIND), dispatch=backend, seed=SEED)
    assert run.problem is None and run.calls == 1
    torch.manual_seed(SEED)
    want_w = Model(*INIT).gemm.weight
    assert torch.equal(backend.seen[0]["weight"], want_w)          # the weights reached the operator
    with torch.no_grad():
        assert torch.allclose(run.output, reference(x), atol=1e-5, rtol=1e-5)


def test_another_seed_gives_other_weights_and_the_comparison_fails(x):
    run = run_model_new(MODEL_NEW, init=INIT, inputs=[x], functions=bound_functions(BIND), dispatch=GemmBackend(),
                        seed=SEED + 1)
    with torch.no_grad():
        assert not torch.allclose(run.output, reference(x), atol=1e-3, rtol=1e-3)


@pytest.mark.parametrize("src,problem", [
    ("import custom_ops_lib\n", "defines no class ModelNew"),
    (MODEL_NEW.replace("self.gemm.bias)", "self.gemm.bias, 1.0)"), "gemm_custom() takes 3 arguments (x, weight, bias), got 4"),
    (MODEL_NEW.replace("gemm_custom(", "gemm_fast("), "no function 'gemm_fast' (the pybind source exports: gemm_custom)"),
    (MODEL_NEW.replace("return custom_ops_lib.gemm_custom(x, self.gemm.weight, self.gemm.bias)", "return x"),
     "without calling the extension"),
    (MODEL_NEW.replace("super().__init__()", "super().__init__()\n        raise ValueError('boom')"), "ValueError: boom"),
])
def test_an_answer_that_cannot_run_is_a_problem_not_a_crash(x, src, problem):
    run = run_model_new(src, init=INIT, inputs=[x], functions=bound_functions(BIND), dispatch=GemmBackend(), seed=SEED)
    assert run.problem is not None and problem in run.problem, run.problem


def test_the_backends_own_errors_propagate(x):
    def broken(fn, named):
        raise RuntimeError("backend bug")
    with pytest.raises(RuntimeError, match="backend bug"):
        run_model_new(MODEL_NEW, init=INIT, inputs=[x], functions=bound_functions(BIND), dispatch=broken, seed=SEED)


def test_the_extension_module_is_restored_afterwards(x):
    import sys

    from kernelwright.tools.tasks import shim
    shim.install()          # its placeholder extension is the process's baseline (run_model_new installs it first);
    before = sys.modules.get("custom_ops_lib")     # taken before it, the test depended on which test ran first
    run_model_new(MODEL_NEW, init=INIT, inputs=[x], functions=bound_functions(BIND), dispatch=GemmBackend(), seed=SEED)
    assert sys.modules.get("custom_ops_lib") is before
