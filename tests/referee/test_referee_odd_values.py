"""No traceback from any answer: whatever an answer's OpDef declares (attribute types, odd or missing
dtypes) and whatever the task hands it (lists, tuples, bools, None, strings, NaN), binding ends in a
case or in a problem that names the attribute, the value and the type."""
import numpy as np
import pytest

from kernelwright.tools.dtypes import KERNEL_DTYPES
from kernelwright.tools.opspec import OpAttr, OpParam, OpSpec
from kernelwright.tools.referee.bind_msopgen import bind_msopgen
from kernelwright.tools.referee.binding import TaskValue
from kernelwright.tools.tasks.reference import RefValue

X = TaskValue("x", "input", 0, RefValue(kind="tensor", shape=[4], dtype="float32", array=np.arange(4, dtype=np.float32)))


def value(name, v, origin="init"):
    return TaskValue(name, origin, 0, RefValue(kind="scalar", value=v))


def attr_op(kind):
    return OpSpec(op_type="Op", inputs=[OpParam(name="x", dtypes=["float32"])], outputs=[OpParam(name="y", dtypes=["float32"])],
                  attrs=[OpAttr(name="a", type=kind)])


# (OpDef attribute type, task value, the attribute's value, or None when the binding must refuse it)
TABLE = [
    ("int", 3, 3), ("int", True, 1), ("int", 4.0, 4), ("int", [5], 5), ("Int", np.int64(6), 6),
    ("int", (2, 2, 2), None),            # a conv-transpose answer's stride tuple for an int attribute
    ("int", [1, 2], None), ("int", [], None), ("int", None, None), ("int", "abc", None), ("int", 2.5, None),
    ("int", float("nan"), None), ("int", float("inf"), None), ("int", {"k": 1}, None), ("int", b"x", None),
    ("float", 2, 2.0), ("float", 1e-5, 1e-5), ("float", [0.5], 0.5), ("float", "x", None), ("float", [1, 2], None),
    ("float", None, None),
    ("bool", True, True), ("bool", 0, False), ("bool", "false", False), ("bool", "maybe", None), ("bool", 0.5, None),
    ("bool", [True, False], None),
    ("string", "mean", "mean"), ("str", 3, "3"), ("string", [1, 2], None),
    ("list_int", (2, 2), [2, 2]), ("list_int", 3, [3]), ("listInt", [1.0, 2.0], [1, 2]), ("list_int", [1.5], None),
    ("list_int", [1, "x"], None), ("list_float", [1, 2], [1.0, 2.0]), ("list_bool", [1, 0], [True, False]),
    ("list_list_int", [[1, 2], [3]], [[1, 2], [3]]), ("list_list_int", [1, [2]], [[1], [2]]),
    ("type", "anything", "anything"), ("", [1, {"k": 2}], [1, {"k": 2}]),
]


@pytest.mark.parametrize("kind,v,want", TABLE, ids=[f"{k or 'untyped'}-{v!r}" for k, v, _ in TABLE])
def test_an_attribute_binds_or_is_refused_with_its_reason(kind, v, want):
    b = bind_msopgen(attr_op(kind), [X, value("a", v)], [])
    if want is None:
        assert b.case is None and b.problem.startswith(f"attribute 'a' <- init 'a' = {v!r}, which is not a value of")
        assert f"attribute type {kind}" in b.problem
    else:
        assert b.problem is None and b.case.attrs == {"a": want}
        assert type(b.case.attrs["a"]) is type(want)


ODD_DTYPES = [[], [""], ["weird"], ["complex128"], ["bool"], ["float32", "weird"], ["int4"], ["qint8"]]
ODD_VALUES = [
    RefValue(kind="tensor", shape=[4], dtype="bool", array=np.ones(4, bool)),
    RefValue(kind="tensor", shape=[4], dtype="int64", array=np.arange(4)),
    RefValue(kind="tensor", shape=[4], dtype="complex64", array=np.zeros(4, np.complex64)),
    RefValue(kind="tensor", shape=[0], dtype="float32", array=np.zeros(0, np.float32)),
    RefValue(kind="tensor", shape=[], dtype="float32", array=np.array(1, np.float32)),
    RefValue(kind="scalar", value=[1, 2]), RefValue(kind="scalar", value=True), RefValue(kind="scalar", value="s"),
    RefValue(kind="scalar", value=None), RefValue(kind="none"),
]


@pytest.mark.parametrize("declared", ODD_DTYPES, ids=[",".join(d) or "none" for d in ODD_DTYPES])
def test_odd_opdef_dtypes_and_odd_task_values_end_in_a_case_or_a_problem(declared):
    expected = [RefValue(kind="tensor", shape=[4], dtype="float32", array=np.zeros(4, np.float32))]
    for out in ODD_DTYPES:
        op = OpSpec(op_type="Op", inputs=[OpParam(name="x", dtypes=declared)], outputs=[OpParam(name="y", dtypes=out)])
        for v in ODD_VALUES:
            for supported in (None, set(KERNEL_DTYPES)):
                b = bind_msopgen(op, [TaskValue("x", "input", 0, v)], expected, supported=supported)
                assert (b.case is None) == bool(b.problem), (declared, out, v)
