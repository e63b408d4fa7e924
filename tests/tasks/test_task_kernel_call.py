"""An NPUKernelBench task's ModelNew may make values before it calls the operator (GeluGrad passes
gelu(x)); the worker records that call, and those values are the first task values the binder sees,
named by the task's pybind function."""
import numpy as np

from kernelwright.tools.opspec import OpAttr, OpParam, OpSpec
from kernelwright.tools.referee.binding import task_values
from kernelwright.tools.referee.bind_msopgen import bind_msopgen
from kernelwright.tools.tasks import load_task
from kernelwright.tools.tasks.kernel_call import parameter_names, returned_outputs
from kernelwright.tools.tasks.reference import ReferenceWorker, RefRun

MODULE = '''
import torch
import torch.nn as nn
import kernel_gen_ops


class Model(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, dy, x):
        return dy * (x + 1) * self.scale


class ModelNew(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, dy, x):
        y = x + 1
        return kernel_gen_ops.scaled_grad(dy, x, y, self.scale)

'''
INPUTS = '''
import torch


def get_inputs(param, device=None):
    return [torch.rand(4, 8), torch.rand(4, 8)]


def get_init_inputs(param, device=None):
    return [2.5]
'''
PYBIND = '''
#include "pytorch_npu_helper.hpp"
at::Tensor scaled_grad(at::Tensor dy, const at::Tensor& x, c10::optional<at::Tensor> y, double scale)
{
    at::Tensor z = at::empty_like(dy);
    EXEC_NPU_CMD(aclnnScaledGrad, dy, x, y, scale, z);
    return z;
}
'''


def _task(tmp_path):
    val = tmp_path / "ScaledGrad" / "validation"
    val.mkdir(parents=True)
    (val / "module.py").write_text(MODULE)
    (val / "prepare_inputs.py").write_text(INPUTS)
    (val / "pybind.cpp").write_text(PYBIND)
    (val / "test_cases.csv").write_text("case_id;shape\n0;[4, 8]\n")
    return load_task(tmp_path / "ScaledGrad")


def test_parameter_names_of_the_pybind_function(tmp_path):
    (tmp_path / "b.cpp").write_text(PYBIND)
    assert parameter_names(str(tmp_path / "b.cpp"), "scaled_grad") == ["dy", "x", "y", "scale"]
    assert parameter_names(str(tmp_path / "b.cpp"), "missing") == [] and parameter_names(None, "f") == []


def test_the_module_function_may_call_a_differently_named_cpp_function(tmp_path):
    # NPUKernelBench's GeGluGradV2: m.def("ge_glu_grad_v2", &custom_pybind_api)
    (tmp_path / "b.cpp").write_text(
        "at::Tensor custom_pybind_api(at::Tensor dy, at::Tensor x, at::Tensor gelu, int64_t dim) {\n"
        "    at::Tensor out = at::empty_like(x);\n    EXEC_NPU_CMD(aclnnGeGluGradV2, dy, x, gelu, dim, out);\n"
        "    return out;\n}\nPYBIND11_MODULE(kernel_gen_ops, m) { m.def(\"ge_glu_grad_v2\", &custom_pybind_api, \"\"); }\n")
    assert parameter_names(str(tmp_path / "b.cpp"), "ge_glu_grad_v2") == ["dy", "x", "gelu", "dim"]
    assert returned_outputs(str(tmp_path / "b.cpp"), "ge_glu_grad_v2", {}) == (["out"], ["dy", "x", "gelu", "dim", "out"])


def test_values_the_task_modelnew_makes_come_first_and_bind_by_their_names(tmp_path):
    task = _task(tmp_path)
    with ReferenceWorker(task, timeout_s=60) as w:
        run = w.run(task.cases[0], 3)
    assert isinstance(run, RefRun), run
    assert run.call_names == ["dy", "x", "y", "scale"]
    assert run.call_from == ["input 0", "input 1", None, "init 0"]
    dy, x = run.args[0].array, run.args[1].array
    np.testing.assert_array_equal(run.call[2].array, x + 1)
    values = task_values(run, ["dy", "x"], ["scale"])
    assert [v.label for v in values][:3] == ["call 'y'", "input 'dy'", "input 'x'"]
    op = OpSpec(op_type="ScaledGrad", inputs=[OpParam(name=n, dtypes=["float32"]) for n in ("dy", "x", "y")],
                outputs=[OpParam(name="z", dtypes=["float32"])],
                attrs=[OpAttr(name="scale", type="float", param_type="required")])
    b = bind_msopgen(op, values, [])
    assert b.problem is None and b.case.attrs == {"scale": 2.5}
    np.testing.assert_array_equal(b.case.inputs["y"], x + 1)
    np.testing.assert_array_equal(b.case.inputs["dy"], dy)


CE_PYBIND = """
#include "pytorch_npu_helper.hpp"
std::vector<at::Tensor> cross_entropy_loss(at::Tensor input, at::Tensor target, bool returnZloss, bool flip)
{
    at::Tensor logProbOut = torch::empty_like(input);  // return nothing; here
    at::Tensor lossOut, zlossOut, lseOut;
    EXEC_NPU_CMD(aclnnCrossEntropyLoss, input, target, returnZloss, lossOut, logProbOut, zlossOut, lseOut);
    std::vector<at::Tensor> result = {lossOut, logProbOut};
    /* result.push_back(input); */
    if (returnZloss) {
        result.push_back(zlossOut);
        if (!flip) { result.push_back(lseOut); } else { result.emplace_back(input); }
    }
    return result;
}
"""


def test_what_the_pybind_function_returns_follows_its_bool_parameters(tmp_path):
    """NPUKernelBench zips the reference's outputs with what the pybind function returns; CrossEntropyLoss's
    returns loss and logProb, and the z-loss outputs only with returnZloss."""
    (tmp_path / "b.cpp").write_text(CE_PYBIND)
    args = ["input", "target", "returnZloss", "lossOut", "logProbOut", "zlossOut", "lseOut"]
    b = str(tmp_path / "b.cpp")
    assert returned_outputs(b, "cross_entropy_loss", {"returnZloss": False, "flip": False}) == (["lossOut", "logProbOut"], args)
    assert returned_outputs(b, "cross_entropy_loss", {"returnZloss": True, "flip": False}) == (
        ["lossOut", "logProbOut", "zlossOut", "lseOut"], args)
    assert returned_outputs(b, "cross_entropy_loss", {"returnZloss": True, "flip": True})[0] == [
        "lossOut", "logProbOut", "zlossOut", "input"]
    assert returned_outputs(b, "cross_entropy_loss", {}) is None          # a condition it cannot decide
    (tmp_path / "c.cpp").write_text(PYBIND)
    assert returned_outputs(str(tmp_path / "c.cpp"), "scaled_grad", {}) == (["z"], ["dy", "x", "y", "scale", "z"])
    loop = CE_PYBIND.replace("if (returnZloss) {", "for (int i = 0; i < 2; ++i) {")
    (tmp_path / "d.cpp").write_text(loop)
    assert returned_outputs(str(tmp_path / "d.cpp"), "cross_entropy_loss", {"returnZloss": True}) is None


def test_the_referee_compares_what_the_pybind_function_returns():
    from types import SimpleNamespace
    from kernelwright.tools.referee.case_runner import _returned_outputs
    from kernelwright.tools.tasks.reference import RefValue
    op = OpSpec(outputs=[OpParam(name=n) for n in ("loss", "logProb", "zloss", "lse")])
    s = SimpleNamespace(build=SimpleNamespace(op=op))
    expected = [RefValue(kind="tensor", name=f"out{i}") for i in range(4)]
    ref = RefRun(args=[], init=[], params=[], outputs=expected, call_returns=["lossOut", "logProbOut"],
                 call_exec=["input", "target", "lossOut", "logProbOut", "zlossOut", "lseOut"])
    order, kept, notes = _returned_outputs(s, ref, ["loss", "logProb", "zloss", "lse"], expected)
    assert order == ["loss", "logProb"] and kept == expected[:2] and "lossOut, logProbOut" in notes[0]
    ref.call_returns = ["lseOut", "lossOut"]
    assert _returned_outputs(s, ref, ["loss", "logProb", "zloss", "lse"], expected)[0] == ["lse", "loss"]
    ref.call_returns = None
    assert _returned_outputs(s, ref, ["loss", "logProb", "zloss", "lse"], expected) == (
        ["loss", "logProb", "zloss", "lse"], expected, [])


def test_an_output_the_pybind_function_does_not_return_may_stay_unwritten():
    # CrossEntropyLoss without returnZloss: the harness never sees zloss and lse, so their poison is no finding
    from types import SimpleNamespace
    from kernelwright.tools.referee.binding import Bound
    from kernelwright.tools.referee.case_runner import check
    from kernelwright.tools.referee.tolerance import PRESETS
    from kernelwright.tools.tasks.reference import RefValue
    from kernelwright.tools.toolchain import Case, OutputSpec, RunResult
    names = ("loss", "logProb", "zloss", "lse")
    op = OpSpec(outputs=[OpParam(name=n) for n in names])
    s = SimpleNamespace(build=SimpleNamespace(op=op), project=SimpleNamespace(kind="msopgen"), tolerance=PRESETS["npukb"],
                        task_check=False)
    got = {n: np.full((4,), 1.5, np.float32) for n in names}
    expected = [RefValue(kind="tensor", name=f"out{i}", shape=[4], array=np.full((4,), 1.5, np.float32))
                for i in range(4)]
    case = Case(inputs={}, outputs={n: OutputSpec(shape=(4,), dtype="float32") for n in names})
    for spec in case.outputs.values():
        spec.poison = np.float32(1.5).tobytes().hex()        # every output still holds its start value
    ref = RefRun(args=[], init=[], params=[], outputs=expected, call_returns=["lossOut", "logProbOut"],
                 call_exec=["input", "target", "lossOut", "logProbOut", "zlossOut", "lseOut"])
    found = check(s, None, Bound(case=case), expected, ref, RunResult(toolchain="sim", status="ok", outputs=got))
    assert sorted(m.output for m in found if m.rule == "unwritten") == ["logProb", "loss"]
    ref.call_returns = None                                  # all four returned: all four judged
    found = check(s, None, Bound(case=case), expected, ref, RunResult(toolchain="sim", status="ok", outputs=got))
    assert sorted(m.output for m in found if m.rule == "unwritten") == sorted(names)
