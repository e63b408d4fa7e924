"""Judging past the element budget: output boxes of the written elements, the input slices they need, and the
slice rule found on a probe (cheap: no emulator)."""
import numpy as np
import torch

from kernelwright.tools.referee.region_values import placeholder, region, values_at
from kernelwright.tools.referee.sampled_regions import boxes_of, fit, input_box
from kernelwright.tools.tasks.region_worker import meta_args, slice_rule


def test_region_values_are_the_generated_input_at_those_offsets():
    box = (slice(1, 3), slice(2, 5))
    want = values_at(5, np.arange(4 * 6)).reshape(4, 6)[box]
    np.testing.assert_array_equal(region(5, (4, 6), box), want)
    np.testing.assert_array_equal(region(5, (4, 6), box, slab=2), want)          # made in slabs: the same values
    cube = values_at(9, np.arange(5 * 6 * 7)).reshape(5, 6, 7)[1:4, :, 2:6]
    np.testing.assert_array_equal(region(9, (5, 6, 7), (slice(1, 4), slice(0, 6), slice(2, 6)), slab=4), cube)
    assert 0.0 <= want.min() and want.max() < 1.0 and want.dtype == np.float32
    assert placeholder((1 << 16, 1 << 16)).nbytes == 4 << 32   # no memory behind it


def test_boxes_cover_each_contiguous_run_of_written_elements():
    mask = np.zeros((4, 8), dtype=bool)
    mask[0, 2:6] = True
    mask[3, :] = True
    assert boxes_of(mask) == [[[0, 1], [2, 6]], [[3, 4], [0, 8]]]


class _Max(torch.nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        return torch.max(x, dim=self.dim)[0]


def test_a_reduction_reads_its_dim_whole_and_slices_the_others():
    rule = slice_rule(_Max(1), [16, 32, 32], [16, 32])          # dims 1 and 2 alike in size: the probe tells
    assert rule == {"whole": 1, "out_dims": [0, 2]}
    assert input_box({**rule, "shape": [16, 32, 32]}, [[3, 4], [8, 16]]) == [[3, 4], [0, 32], [8, 16]]


def test_elementwise_and_row_wise_rules_and_a_refusal():
    assert slice_rule(torch.nn.ReLU(), [8, 8], [8, 8]) == {"whole": None, "out_dims": [0, 1]}
    assert slice_rule(torch.nn.Softmax(dim=1), [8, 8], [8, 8]) == {"whole": 1, "out_dims": [0, 1]}

    class Total(torch.nn.Module):
        def forward(self, x):
            return x - x.mean()                                   # every element reads all of x
    assert "refused" in slice_rule(Total(), [8, 8], [8, 8])


def test_inputs_are_made_on_the_meta_device_and_only_torch_rand_is_generated():
    def make(getter):
        return lambda case, mapping: (getter(), [1])
    args, why = meta_args(make(lambda: [torch.rand(1 << 12, 1 << 12, 1 << 8)]), {})
    assert why is None and args[0].is_meta
    _, why = meta_args(make(lambda: [torch.randn(64, 64)]), {})
    assert "torch.randn" in why
    _, why = meta_args(make(lambda: [torch.rand(8), torch.rand(8)]), {})
    assert "2 tensor inputs" in why


def test_a_box_past_the_reference_budget_is_cut_to_fit():
    rule = {"whole": 1, "out_dims": [0, 2], "shape": [16, 4096, 4096]}
    assert fit(rule, [[0, 8], [0, 4096]], 4096 * 4096) == [[0, 1], [0, 4096]]      # one row: 16M input elements
    assert fit(rule, [[0, 8], [0, 4096]], 4096 * 100) == [[0, 1], [0, 64]]
    assert fit(rule, [[0, 1], [0, 1]], 100) is None                                  # one element reads 4096
