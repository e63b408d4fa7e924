"""A shrunk case whose outputs dwarf its inputs (a strided transposed conv) shrinks further (verify._fit_outputs)."""
import math

from kernelwright.tools.referee.verify import _fit_outputs, _plan
from kernelwright.tools.tasks.reference import RefShapes, RefValue

BUDGET, CORES, UB = 1 << 20, 40, 196608


def _t(*dims):
    return RefValue(kind="tensor", shape=list(dims), dtype="float32")


def _conv_t(mapping):
    """MKB conv_transposed_2d_..._dilated_padded_strided: x [16, 32, 64, 128] -> [16, 64, 5H - 2, 5W - 2]."""
    n, c, h, w = (mapping.get(d, d) for d in (16, 32, 64, 128))
    return n * mapping.get(64, 64) * (5 * (h - 1) + 3) * (5 * (w - 1) + 3) if c else None


def test_outputs_past_the_factor_shrink_the_inputs_until_they_fit():
    shapes = RefShapes(args=[_t(16, 32, 64, 128)], init=[], params=[_t(32, 64, 3, 3)], outputs=[_t(16, 64, 318, 638)])
    first = _plan(shapes, BUDGET, CORES, UB)
    assert first.fits and _conv_t(first.mapping) > 5 * first.elements_after > BUDGET    # outputs 6x the inputs
    plan = _fit_outputs(first, shapes, BUDGET, CORES, UB, _conv_t)
    assert plan.fits and _conv_t(plan.mapping) <= BUDGET
    assert plan.elements_after < first.elements_after and math.prod(plan.apply([16, 32, 64, 128])) > 0


def test_outputs_within_the_budget_or_the_ratio_or_unknown_leave_the_plan_alone():
    shapes = RefShapes(args=[_t(4096, 4096)], init=[], outputs=[_t(4096, 4096)])
    first = _plan(shapes, BUDGET, CORES, UB)
    same = _fit_outputs(first, shapes, BUDGET, CORES, UB, lambda m: math.prod(first.apply([4096, 4096])))
    assert same is first
    assert _fit_outputs(first, shapes, BUDGET, CORES, UB, lambda m: None) is first
    upsampled = lambda m: 4 * math.prod(first.apply([4096, 4096]))        # noqa: E731 - a 2x 2-d upsampling
    assert _fit_outputs(first, shapes, BUDGET, CORES, UB, upsampled) is first
