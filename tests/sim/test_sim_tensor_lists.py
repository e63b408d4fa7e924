"""Tensor lists (DYNAMIC inputs/outputs of msopgen ops) on the sim: the case's members x[0], x[1], ...
reach the kernel as one GM descriptor per list, outputs come back per member, and a case that
does not spell a list as members is refused with the rule, the place and a hint."""
import numpy as np
import pytest

from kernelwright.tools.sim import corpus
from kernelwright.tools.toolchain import Case, OutputSpec


@pytest.fixture(scope="module")
def built(sim):
    entry = next(e for e in corpus.load(kind="good") if e.name == "list_scale_bias")
    build = sim.build(entry.project())
    assert build.ok, "\n".join(d.render() for d in build.diagnostics[:5])
    assert [p.param_type for p in build.op.inputs] == ["dynamic", "required"]
    return build


def _case(*shapes, **kw):
    rng = np.random.default_rng(1)
    inputs = {f"x[{k}]": rng.standard_normal(s).astype(np.float32) for k, s in enumerate(shapes)}
    inputs["bias"] = np.array([1.0], np.float32)
    return Case(inputs=inputs, attrs={"scale": 3.0}, **kw)


def test_outputs_come_back_per_member_with_inferred_shapes(sim, built):
    case = _case((5,), (2, 7))   # no output specs: as many as the input list, shapes from InferShape
    r = sim.run(built, case)
    assert r.status == "ok", r.detail
    assert sorted(r.outputs) == ["y[0]", "y[1]"] and r.outputs["y[1]"].shape == (2, 7)
    np.testing.assert_allclose(r.outputs["y[1]"], case.inputs["x[1]"] * 3 + 1, rtol=1e-6)
    assert r.block_dim == 2   # TilingFunc counted the list through GetDynamicInputShape


def test_named_output_members_set_their_count_and_shapes(sim, built):
    case = _case((6,), outputs={"y[0]": OutputSpec(shape=(2, 3), dtype="float32")})
    r = sim.run(built, case)
    assert r.status == "ok", r.detail
    assert list(r.outputs) == ["y[0]"] and r.outputs["y[0]"].shape == (2, 3)


def test_a_list_with_a_hole_is_a_bad_case(sim, built):
    case = _case((5,), (3,))
    case.inputs["x[2]"] = case.inputs.pop("x[1]")
    r = sim.run(built, case)
    assert r.status == "bad_case" and "misses members [1]" in r.detail and "without holes" in r.detail


def test_a_plain_tensor_for_a_list_parameter_is_a_bad_case(sim, built):
    case = _case((5,))
    case.inputs["x"] = case.inputs.pop("x[0]")
    r = sim.run(built, case)
    assert r.status == "bad_case" and "'x[0]', 'x[1]'" in r.detail and "ParamType(DYNAMIC)" in r.detail
