"""A shrunk case whose outputs and unfolded conv inputs dwarf its inputs (a strided transposed conv) shrinks
further (verify._fit_held); a GEMM of small K, whose outputs are 16 times its inputs, does not."""
import math

from kernelwright.tools.referee.verify import HELD_FACTOR, _fit_held, _plan
from kernelwright.tools.tasks.reference import RefShapes, RefValue

BUDGET, CORES, UB = 1 << 20, 40, 196608


def _t(*dims):
    return RefValue(kind="tensor", shape=list(dims), dtype="float32")


def _conv_t(mapping):
    """MKB conv_transposed_2d_..._dilated_padded_strided: x [16, 32, 64, 128] -> [16, 64, 5H - 2, 5W - 2], and
    its unfolded input N x 32 x 9 x Ho x Wo (C_out 64 and H 64 are one value: they shrink together)."""
    n, c, h, w = (mapping.get(d, d) for d in (16, 32, 64, 128))
    positions = n * (5 * (h - 1) + 3) * (5 * (w - 1) + 3)
    return positions * h + positions * c * 9


def test_a_case_holding_far_more_than_its_inputs_shrinks_until_it_fits():
    shapes = RefShapes(args=[_t(16, 32, 64, 128)], init=[], params=[_t(32, 64, 3, 3)], outputs=[_t(16, 64, 318, 638)])
    first = _plan(shapes, BUDGET, CORES, UB)
    assert first.fits and _conv_t(first.mapping) > 100 * BUDGET          # 0.5M inputs, an im2col of 112M
    plan = _fit_held(first, shapes, BUDGET, CORES, UB, _conv_t)
    assert plan.fits and _conv_t(plan.mapping) <= HELD_FACTOR * BUDGET
    assert plan.elements_after < first.elements_after and math.prod(plan.apply([16, 32, 64, 128])) > 0


def test_a_gemm_of_small_k_or_an_unknown_size_keeps_its_plan():
    shapes = RefShapes(args=[_t(32768, 64), _t(64, 32768)], init=[], outputs=[_t(32768, 32768)])
    first = _plan(shapes, BUDGET, CORES, UB)
    squared = lambda m: m.get(32768, 32768) ** 2          # noqa: E731 - MKB matmul_with_small_k_dimension
    assert squared(first.mapping) >= 4 * BUDGET
    assert _fit_held(first, shapes, BUDGET, CORES, UB, squared) is first
    assert _fit_held(first, shapes, BUDGET, CORES, UB, lambda m: None) is first
