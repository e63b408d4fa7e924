"""nn.GroupNorm with 4 groups over 16 channels.

category: normalization
level: 2
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, groups, channels):
        super().__init__()
        self.norm = nn.GroupNorm(groups, channels)

    def forward(self, x):
        return self.norm(x)


def get_inputs():
    return [torch.randn(3, 16, 10, 10)]


def get_init_inputs():
    return [4, 16]
