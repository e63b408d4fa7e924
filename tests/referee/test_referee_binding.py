"""Binding a task case onto a project: OpDef inputs and attributes by name, else by position (and
said so), scalars typed to the OpDef variant; launch specs through safe expressions."""
import numpy as np
import pytest

from kernelwright.tools.opspec import OpAttr, OpParam, OpSpec
from kernelwright.tools.project import LaunchArg, LaunchSpec
from kernelwright.tools.referee.bind_launch import bind_launch
from kernelwright.tools.referee.bind_msopgen import bind_msopgen
from kernelwright.tools.referee.binding import TaskValue, match_outputs
from kernelwright.tools.referee.launch_expr import ExprError, TensorInfo, evaluate
from kernelwright.tools.tasks.reference import RefValue

F32 = ["float32", "float16"]


def tensor(name, shape, dtype="float32", origin="input", index=0):
    arr = np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)
    return TaskValue(name, origin, index, RefValue(kind="tensor", shape=list(shape), dtype=dtype, array=arr))


def scalar(name, value, origin="init", index=0):
    return TaskValue(name, origin, index, RefValue(kind="scalar", value=value))


def op(inputs, attrs=(), outputs=("y",)):
    return OpSpec(op_type="Op", inputs=[OpParam(name=n, param_type=pt, dtypes=F32) for n, pt in inputs],
                  outputs=[OpParam(name=n, dtypes=F32) for n in outputs], attrs=[OpAttr(name=n, type=t) for n, t in attrs])


def test_names_win_over_positions_and_attrs_follow_names():
    values = [tensor("x1", (2, 3)), tensor("x2", (2, 3), index=1), TaskValue("bias", "input", 2, RefValue(kind="none")),
              tensor("gamma", (3,), origin="init"), tensor("beta", (3,), origin="init", index=1),
              scalar("epsilon", 1e-5, index=2), scalar("additional_out", True, index=3)]
    b = bind_msopgen(op([("x1", "required"), ("x2", "required"), ("gamma", "required"), ("beta", "required"),
                         ("bias", "optional")], [("epsilon", "float"), ("additionalOut", "bool")]), values, [])
    assert b.problem is None and list(b.case.inputs) == ["x1", "x2", "gamma", "beta"]
    assert b.case.attrs == {"epsilon": 1e-5, "additionalOut": True}
    assert "optional input 'bias' left empty" in b.notes and not any("position" in n for n in b.notes)
    # every input is read back after the run, for the mutation check
    assert set(b.case.outputs) >= {"x1", "x2", "gamma", "beta"}


def test_positions_are_used_and_said():
    values = [tensor("a", (4,)), tensor("b", (4,), index=1), scalar("k", 3)]
    b = bind_msopgen(op([("x", "required"), ("y", "required")], [("alpha", "int")]), values, [])
    assert [n for n in b.notes if "by position" in n] == [
        "OpDef input 'x' <- input 'a' (by position: no task value is named 'x')",
        "OpDef input 'y' <- input 'b' (by position: no task value is named 'y')",
        "attribute 'alpha' <- init 'k' = 3 (by position)"]
    np.testing.assert_array_equal(b.case.inputs["y"], values[1].value.array)


def test_missing_required_input_is_a_problem_naming_the_values():
    b = bind_msopgen(op([("x", "required"), ("y", "required")]), [tensor("x", (2,))], [])
    assert b.case is None and "OpDef input 'y' is required" in b.problem and "input 'x'" in b.problem


def test_scalar_becomes_a_one_element_tensor_of_the_variant_dtype():
    values = [tensor("x", (8,), "float16"), TaskValue("value", "input", 1, RefValue(
        kind="tensor", shape=[1], dtype="float64", array=np.array([2.5])))]
    b = bind_msopgen(op([("x", "required"), ("value", "required")]), values, [])
    assert b.case.inputs["value"].dtype == np.float16 and b.case.inputs["value"].tolist() == [2.5]
    assert any("1-element float16 tensor" in n for n in b.notes)


def test_unsupported_dtypes_are_backend_gaps():
    c = np.ones(4, np.complex64)
    b = bind_msopgen(op([("x", "required")]), [TaskValue("x", "input", 0, RefValue(kind="tensor", shape=[4],
                                                                                   dtype="complex64", array=c))],
                     [], supported={"float32", "float16"})
    assert b.unsupported and "no complex64 support" in b.problem


def test_outputs_pair_by_position_or_by_shape():
    refs = [RefValue(kind="tensor", shape=[4, 8]), RefValue(kind="tensor", shape=[4, 1])]
    got = {"y": np.zeros((4, 8)), "mean": np.zeros((4, 1)), "rstd": np.zeros((4, 1))}
    pairs, notes = match_outputs(refs, got, ["y", "mean", "rstd"])
    assert pairs == [(0, "y"), (1, "mean")]
    assert any("ambiguous" in n and "mean, rstd" in n for n in notes)
    assert match_outputs(refs[:1] * 3, got, ["y", "mean", "rstd"])[0] == [(0, "y"), (1, "mean"), (2, "rstd")]


def test_launch_spec_binding():
    spec = LaunchSpec(kernel="add_k", block_dim="min(cores, cdiv(numel(x), 256))", args=[
        LaunchArg(kind="input", name="x"), LaunchArg(kind="input", name="y"), LaunchArg(kind="output", name="z"),
        LaunchArg(kind="scalar", expr="numel(x)"), LaunchArg(kind="scalar", ctype="float", expr="scale * 2"),
        LaunchArg(kind="workspace", expr="align(nbytes(x), 32)"), LaunchArg(kind="null")])
    values = [tensor("x", (3, 1000)), tensor("y", (3, 1000), index=1), scalar("scale", 0.25)]
    b = bind_launch(spec, values, [RefValue(kind="tensor", shape=[3, 1000], dtype="float32")], cores=48, ub_bytes=196608)
    assert b.problem is None and b.case.block_dim == 12 and b.outputs == [(0, "z")]
    kinds = [(a.kind, a.value, a.bytes) for a in b.case.args]
    assert kinds == [("tensor", None, 0), ("tensor", None, 0), ("tensor", None, 0), ("int", 3000, 0),
                     ("float", 0.5, 0), ("workspace", None, 12000), ("null", None, 0)]
    assert b.case.outputs["z"].shape == (3, 1000) and set(b.case.outputs) == {"x", "y", "z"}


def test_launch_spec_errors_name_the_expression():
    spec = LaunchSpec(kernel="k", block_dim="numel(w)", args=[LaunchArg(kind="input", name="x")])
    b = bind_launch(spec, [tensor("x", (4,))], [], cores=48, ub_bytes=196608)
    assert b.case is None and "unknown name 'w'" in b.problem


@pytest.mark.parametrize("expr,value", [
    ("cdiv(numel(x), 1024)", 30), ("dim(x, -1) % 8", 5), ("rank(x) * itemsize(x)", 8), ("2 ** 10", 1024),
    ("cores if numel(x) > 100 else 1", 48), ("max(1, numel(x) // cores)", 625), ("-dim(x, 0)", -3),
])
def test_expressions(expr, value):
    env = {"x": TensorInfo("x", (3, 10005), 4), "cores": 48}
    assert evaluate(expr, env) == value


@pytest.mark.parametrize("expr,message", [
    ("__import__('os').system('true')", "Call is not allowed|unknown name|not allowed"),
    ("x.shape", "Attribute is not allowed"),
    ("(lambda: 1)()", "not allowed"),
    ("numel(3)", "takes a tensor name"),
    ("dim(x, 5)", "has rank 2"),
    ("1 / 0", "division by zero"),
    ("10 ** 100", "power too large"),
    ("x", "not a number"),
    ("numel(x", "not an expression"),
])
def test_unsafe_or_wrong_expressions_are_refused(expr, message):
    with pytest.raises(ExprError, match=message):
        evaluate(expr, {"x": TensorInfo("x", (3, 4), 4), "cores": 48})


def test_in_place_operator_results_come_back_in_its_input_buffers():
    from types import SimpleNamespace

    from kernelwright.tools.referee.binding import Bound
    from kernelwright.tools.referee.case_runner import check
    from kernelwright.tools.referee.tolerance import PRESETS
    from kernelwright.tools.tasks.reference import RefRun
    from kernelwright.tools.toolchain import RunResult

    x = np.linspace(-1, 1, 64, dtype=np.float32)
    s = SimpleNamespace(project=SimpleNamespace(kind="msopgen"), build=SimpleNamespace(op=OpSpec()),
                        tolerance=PRESETS["default"], task_check=False)
    ref = RefRun(args=[], init=[], params=[], outputs=[RefValue(kind="tensor", shape=[64], dtype="float32",
                                                                array=np.exp(x))])
    bound = Bound(inputs={"x": x})
    good = RunResult(toolchain="sim", status="ok", outputs={"x": np.exp(x)})
    assert check(s, None, bound, ref.outputs, ref, good) == []
    untouched = RunResult(toolchain="sim", status="ok", outputs={"x": x.copy()})
    (m,) = check(s, None, Bound(inputs={"x": x}), ref.outputs, ref, untouched)
    assert m.rule == "tolerance" and m.output == "output 0 (x)"


def test_a_list_value_bound_to_an_input_becomes_a_1d_tensor():
    spec = OpSpec(op_type="Fill", inputs=[OpParam(name="dims", dtypes=["int64"]), OpParam(name="value", dtypes=["float32"])],
                  outputs=[OpParam(name="y", dtypes=["float32"])])
    b = bind_msopgen(spec, [scalar("dims", [2, 3], origin="input"), scalar("value", 1.5, origin="input", index=1)], [])
    assert b.case.inputs["dims"].tolist() == [2, 3] and b.case.inputs["dims"].dtype == np.int64
    assert b.case.inputs["value"].tolist() == [1.5] and b.case.inputs["value"].dtype == np.float32


def test_cast_like_variant_is_chosen_by_the_reference_output_dtype():
    # float32 input with several output columns (float16, int32): the reference's int32 result picks the column
    spec = OpSpec(op_type="Cast", inputs=[OpParam(name="x", dtypes=["float32", "float32", "float16"])],
                  outputs=[OpParam(name="y", dtypes=["float16", "int32", "float32"])],
                  attrs=[OpAttr(name="dst_type", type="int", param_type="required")])
    expected = [RefValue(kind="tensor", shape=[4], dtype="int32", array=np.zeros(4, np.int32))]
    b = bind_msopgen(spec, [tensor("x", (4,)), scalar("dst_type", 3)], expected)
    assert b.case.outputs["y"].dtype == "int32" and b.case.attrs == {"dst_type": 3}


def test_a_value_that_does_not_fit_an_attribute_is_a_problem_not_a_traceback():
    # a conv-transpose answer declared `stride` an int attribute; the task gives a tuple
    values = [tensor("x", (2, 4)), scalar("stride", [2, 2, 2])]
    b = bind_msopgen(op([("x", "required")], [("stride", "int")]), values, [])
    assert b.case is None and b.problem == ("attribute 'stride' <- init 'stride' = [2, 2, 2], which is not a value of the "
                                        "OpDef's attribute type int")


def test_a_complex64_output_is_allocated_as_declared():
    # NPUKernelBench's AbsMath: a complex64 x whose binding allocates empty_like(x), compared with torch.abs(x)
    c = np.ones(4, np.complex64)
    spec = OpSpec(op_type="AbsMath", inputs=[OpParam(name="x", dtypes=["float32", "complex64"])],
                  outputs=[OpParam(name="y", dtypes=["float32", "complex64"])])
    b = bind_msopgen(spec, [TaskValue("x", "input", 0, RefValue(kind="tensor", shape=[4], dtype="complex64", array=c))],
                     [RefValue(kind="tensor", shape=[4], dtype="float32")])
    assert b.problem is None and b.case.outputs["y"].dtype == "complex64"


def test_a_one_element_tensor_feeds_a_number_attribute():
    # NPUKernelBench's Gemm: forward(a, b, c, alpha, beta) with alpha = torch.rand(1), bound to a float attribute
    values = [tensor("a", (2, 2)), tensor("b", (2, 2), index=1), tensor("c", (2, 2), index=2),
              TaskValue("alpha", "input", 3, RefValue(kind="tensor", shape=[1], dtype="float32", array=np.float32([0.5]))),
              TaskValue("beta", "input", 4, RefValue(kind="tensor", shape=[1], dtype="float32", array=np.float32([-2.0])))]
    b = bind_msopgen(op([("a", "required"), ("b", "required"), ("c", "required")], [("alpha", "float"), ("beta", "float")]),
                     values, [])
    assert b.problem is None and b.case.attrs == {"alpha": 0.5, "beta": -2.0}
    assert any("1-element tensor, as pybind converts it" in n for n in b.notes)


def test_an_attribute_takes_the_value_whose_name_abbreviates_it_before_any_by_position():
    # NPUKernelBench LayerNormV4: Model(normalized_shape, weight, bias, eps) and the OpDef attribute `epsilon`;
    # by position `epsilon` took normalized_shape = [256] and every rstd came out 1/16
    values = [tensor("input_tensor", (2, 4)), scalar("normalized_shape", [4], index=0),
              tensor("weight", (4,), origin="init", index=1), tensor("bias", (4,), origin="init", index=2),
              scalar("eps", 1e-5, index=3)]
    b = bind_msopgen(op([("x", "required"), ("gamma", "optional"), ("beta", "optional")], [("epsilon", "float")]),
                     values, [])
    assert b.problem is None and b.case.attrs == {"epsilon": 1e-5}
    assert "attribute 'epsilon' <- init 'eps' = 1e-05 (by abbreviation)" in b.notes
    # too short to be an abbreviation (`a` of `alpha`): by position, and said so
    b = bind_msopgen(op([("x", "required")], [("alpha", "float")]), [tensor("x", (2,)), scalar("k", 2.0), scalar("a", 3.0)], [])
    assert b.case.attrs == {"alpha": 2.0} and "attribute 'alpha' <- init 'k' = 2.0 (by position)" in b.notes
