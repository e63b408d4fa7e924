"""hardswish(GroupNorm(sigmoid(Conv2d(x)) * a per-channel scale)) on two image sizes: a norm between the
elementwise ops after a convolution, with its affine weight and bias."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.scale = nn.Parameter(torch.randn(8, 1, 1))
        self.gn = nn.GroupNorm(4, 8)

    def forward(self, x):
        return nn.functional.hardswish(self.gn(torch.sigmoid(self.conv(x)) * self.scale))


def get_input_groups():
    return [[torch.randn(2, 3, 9, 10)], [torch.randn(1, 3, 5, 40)]]


def get_inputs():
    return get_input_groups()[0]


def get_init_inputs():
    return []
