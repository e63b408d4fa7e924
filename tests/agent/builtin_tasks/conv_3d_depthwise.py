"""A depthwise Conv3d (groups = channels, multiplier 2) with padding on the leading axes, on two volumes."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv3d(3, 6, (2, 3, 3), padding=(1, 1, 0), groups=3, bias=False)

    def forward(self, x):
        return self.conv(x)


def get_input_groups():
    return [[torch.randn(2, 3, 4, 5, 6)], [torch.randn(1, 3, 3, 4, 9)]]


def get_inputs():
    return get_input_groups()[0]


def get_init_inputs():
    return []
