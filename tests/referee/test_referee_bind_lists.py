"""Tensor lists in the msopgen binding: a DYNAMIC OpDef input takes a task's list as members x[0],
x[1], ...; DYNAMIC outputs get one member per reference output; misfits are problems that say why."""
import numpy as np

from kernelwright.tools.opspec import OpParam, OpSpec
from kernelwright.tools.referee.bind_lists import output_keys, output_order, post_array
from kernelwright.tools.referee.bind_msopgen import bind_msopgen
from kernelwright.tools.referee.binding import TaskValue
from kernelwright.tools.sim.manifest import list_line_fields
from kernelwright.tools.tasks.reference import RefValue
from kernelwright.tools.tensor_lists import gaps, instance_keys, members, split_member

F = ["float32", "float16"]


def t(shape, dtype="float32"):
    a = np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)
    return RefValue(kind="tensor", shape=list(shape), dtype=dtype, array=a)


def tlist(name, shapes, dtype="float32", index=0):
    return TaskValue(name, "input", index, RefValue(kind="tensor_list", items=[t(s, dtype) for s in shapes]))


def op(inputs, outputs=(("y", "dynamic"),), scalar=()):
    return OpSpec(op_type="Op", inputs=[OpParam(name=n, param_type=pt, dtypes=F, scalar=n in scalar) for n, pt in inputs],
                  outputs=[OpParam(name=n, param_type=pt, dtypes=F) for n, pt in outputs])


def test_a_list_binds_as_members_and_outputs_follow_the_reference():
    expected = [t((3,)), t((2, 4))]
    b = bind_msopgen(op([("x", "dynamic"), ("alpha", "required")]),
                     [tlist("inputs", [(3,), (2, 4)]), TaskValue("alpha", "input", 1, t((1,)))], expected)
    assert b.problem is None
    assert list(b.case.inputs) == ["x[0]", "x[1]", "alpha"]
    assert b.case.inputs["x[1]"].shape == (2, 4)
    assert b.case.outputs["y[0]"].shape == (3,) and b.case.outputs["y[1]"].shape == (2, 4)
    assert b.case.outputs["y[0]"].dtype == "float32"


def test_a_float16_list_selects_the_float16_variant():
    b = bind_msopgen(op([("x", "dynamic")]), [tlist("x", [(4,)], "float16")], [t((4,), "float16")])
    assert b.case.outputs["y[0]"].dtype == "float16"


def test_mixed_dtypes_in_a_list_are_a_problem_with_a_hint():
    mixed = TaskValue("x", "input", 0, RefValue(kind="tensor_list", items=[t((2,)), t((2,), "float16")]))
    b = bind_msopgen(op([("x", "dynamic")]), [mixed], [])
    assert b.case is None and "mixes float16, float32" in b.problem and "hint" in b.problem


def test_a_list_for_a_single_tensor_input_says_declare_it_dynamic():
    b = bind_msopgen(op([("x", "required")], (("y", "required"),)), [tlist("x", [(2,), (2,)])], [])
    assert b.case is None and "ParamType(DYNAMIC)" in b.problem and "list of 2 tensors" in b.problem


def test_one_tensor_for_a_list_input_is_a_list_of_one():
    b = bind_msopgen(op([("x", "dynamic")]), [TaskValue("x", "input", 0, t((5,)))], [t((5,))])
    assert list(b.case.inputs) == ["x[0]"] and any("list of one tensor" in n for n in b.notes)


def test_a_scalar_input_takes_a_number_by_position():
    values = [tlist("x", [(4,)]), TaskValue("scalar_weight", "input", 1, RefValue(kind="scalar", value=0.5))]
    b = bind_msopgen(op([("scalar", "required"), ("x", "dynamic")], scalar=("scalar",)), values, [t((4,))])
    assert b.problem is None and b.case.inputs["scalar"].tolist() == [0.5]
    assert list(b.case.inputs) == ["x[0]", "scalar"]


def test_a_mutated_list_is_checked_member_by_member():
    b = bind_msopgen(op([("grads", "dynamic"), ("found", "required")], ()),
                     [tlist("grads", [(2,), (3,)]), TaskValue("found", "input", 1, t((1,)))], [], mutated={0})
    assert b.inplace == {"grads[0]": 0, "grads[1]": 0}
    post = {0: RefValue(kind="tensor_list", items=[t((2,)), t((3,))])}
    assert post_array(post, 0, "grads[1]").shape == (3,) and post_array(post, 1, "found") is None


def test_output_keys_and_order():
    assert output_keys(op([("x", "dynamic")]), 3) == ["y[0]", "y[1]", "y[2]"]
    two = op([("x", "dynamic")], (("y", "dynamic"), ("flag", "required")))
    assert output_keys(two, 3) == ["y[0]", "y[1]", "flag"]
    assert output_keys(op([("x", "required")], (("y", "required"),)), 2) is None
    got = {"y[1]": 0, "y[0]": 0, "flag": 0, "y[10]": 0}
    assert output_order(two, got) == ["y[0]", "y[1]", "y[10]", "flag"]


def test_case_keys_of_lists():
    keys = ["x[1]", "x[0]", "bias", "x[10]", "xx[0]"]
    assert split_member("x[10]") == ("x", 10) and split_member("x") is None
    assert members(keys, "x") == ["x[0]", "x[1]", "x[10]"] and gaps(keys, "x") == list(range(2, 10))
    assert instance_keys(OpParam(name="bias", param_type="required"), keys) == ["bias"]
    assert instance_keys(OpParam(name="gamma", param_type="optional"), keys) == []
    assert list_line_fields("x", ["x[0]", "x[1]"], [(2, 3), ()]) == ["list", "x", "x[0],x[1]", "2,3;"]


def test_a_scalar_list_tensor_takes_the_declared_dtype_of_the_variant():
    spec = op([("x", "dynamic"), ("scalars", "required")], scalar=("scalars",))
    spec.inputs[0].dtypes = ["float32", "int32"]
    spec.inputs[1].dtypes = ["float32", "int64"]
    spec.outputs[0].dtypes = ["float32", "int32"]
    ints = TaskValue("scalar_list", "input", 1, t((3,), "int32"))
    b = bind_msopgen(spec, [tlist("x", [(2,), (2,), (2,)], "int32"), ints], [t((2,), "int32")] * 3)
    assert b.problem is None and b.case.inputs["scalars"].dtype == np.int64
    assert b.case.inputs["scalars"].tolist() == [0, 1, 2] and any("3-element int64" in n for n in b.notes)


def test_a_reference_returning_a_concatenated_list_is_compared_with_the_joined_members():
    from types import SimpleNamespace

    from kernelwright.tools.referee.binding import Bound
    from kernelwright.tools.referee.case_runner import check
    from kernelwright.tools.referee.tolerance import PRESETS
    from kernelwright.tools.tasks.reference import RefRun
    from kernelwright.tools.toolchain import RunResult

    spec = op([("grads", "dynamic"), ("found", "required")], ())
    g0, g1, found = np.ones((2, 2), np.float32), np.arange(3, dtype=np.float32), np.zeros(1, np.float32)
    joined = np.concatenate([g0.reshape(-1), g1])
    s = SimpleNamespace(project=SimpleNamespace(kind="msopgen"), build=SimpleNamespace(op=spec),
                        tolerance=PRESETS["default"], task_check=False)
    ref = RefRun(args=[], init=[], params=[], outputs=[
        RefValue(kind="tensor", shape=[7], dtype="float32", array=joined),
        RefValue(kind="tensor", shape=[1], dtype="float32", array=found)])
    bound = Bound(inputs={"grads[0]": g0, "grads[1]": g1, "found": found})
    good = RunResult(toolchain="sim", status="ok", outputs={"grads[0]": g0, "grads[1]": g1, "found": found})
    assert check(s, None, bound, ref.outputs, ref, good) == []
    bad = RunResult(toolchain="sim", status="ok", outputs={"grads[0]": g0, "grads[1]": g1 + 1, "found": found})
    (m,) = check(s, None, Bound(inputs=dict(bound.inputs)), ref.outputs, ref, bad)
    assert m.output == "output 0 (grads[*])"
