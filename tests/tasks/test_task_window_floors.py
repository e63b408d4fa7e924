"""The least lengths sliding windows need, recorded from a forward on fake tensors (window_floors.py)."""
import torch
from torch._subclasses.fake_tensor import FakeTensorMode

from kernelwright.tools.tasks.window_floors import WindowFloors


def _floors(model: torch.nn.Module, *shape: int) -> dict[int, int]:
    with FakeTensorMode(allow_non_fake_inputs=True):
        x = torch.randn(*shape)
        with torch.no_grad(), WindowFloors() as windows:
            model(x)
    return windows.floors


def test_a_dilated_padded_convolution_needs_its_dilated_extent_less_the_padding():
    conv = torch.nn.Conv2d(4, 8, (5, 9), padding=(2, 4), dilation=(2, 3))
    assert _floors(conv, 2, 4, 40, 48) == {40: 9 - 4, 48: 25 - 8}
    # a floor is keyed by the dim's value: H and W of one value need the larger of the two
    assert _floors(conv, 2, 4, 48, 48) == {48: 17}


def test_pooling_windows_and_a_transposed_convolution():
    assert _floors(torch.nn.MaxPool2d(7, stride=2, padding=1, dilation=2), 1, 3, 30, 40) == {30: 11, 40: 11}
    # MKB average_pooling_3d: kernel 3, padding 1 at T = H = 2 failed ("input image smaller than kernel size")
    assert _floors(torch.nn.AvgPool3d(3, stride=2, padding=1), 1, 2, 10, 12, 14) == {10: 3, 12: 3, 14: 3}
    # a transposed convolution grows its input: only a padding past its extent asks for a floor
    assert _floors(torch.nn.ConvTranspose1d(2, 2, 3, stride=2, padding=1), 1, 2, 16) == {}
    assert _floors(torch.nn.ConvTranspose1d(2, 2, 3, stride=1, padding=3), 1, 2, 16) == {16: 5}   # (5 - 1) - 6 + 3 = 1
    # a "same" padded window needs no more than the shrinker's own floor of 2
    assert _floors(torch.nn.Conv2d(2, 2, 3, padding=1), 1, 2, 16, 16) == {}
    assert _floors(torch.nn.Conv2d(2, 2, 3), 1, 2, 16, 16) == {16: 3}


def test_the_unfolded_input_of_a_convolution_is_counted():
    with FakeTensorMode(allow_non_fake_inputs=True):
        x = torch.randn(2, 4, 10, 12)
        with torch.no_grad(), WindowFloors() as windows:
            torch.nn.Conv2d(4, 6, 3)(x)                               # out [2, 6, 8, 10]
            torch.nn.ConvTranspose2d(4, 6, 3, stride=2)(x)            # out [2, 6, 21, 25]
    assert windows.unfolded == 2 * 4 * 9 * (8 * 10 + 21 * 25)


def test_a_group_norm_records_its_channels_and_groups():
    with FakeTensorMode(allow_non_fake_inputs=True):
        x = torch.randn(4, 96, 5)
        with torch.no_grad(), WindowFloors() as windows:
            torch.nn.GroupNorm(12, 96)(x)
            torch.nn.functional.group_norm(torch.randn(2, 8), 2)
    assert windows.groups == {96: 12, 8: 2} and windows.floors == {}


def test_a_grouped_convolution_records_what_its_channels_stay_a_multiple_of():
    with FakeTensorMode(allow_non_fake_inputs=True):
        x = torch.randn(2, 32, 6, 6)
        with torch.no_grad(), WindowFloors() as windows:
            torch.nn.ConvTranspose2d(32, 24, 3, groups=4)(x)
            torch.nn.Conv2d(32, 32, 3, groups=32)(x)         # depthwise: the group count shrinks with the channels
    assert windows.multiples == {32: 4, 24: 4}
