"""Per-channel scaling of an NCHW tensor.

category: broadcast
level: 2
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, scale):
        return x / (scale.abs() + 1.0)


def get_inputs():
    return [torch.randn(2, 12, 9, 10), torch.randn(1, 12, 1, 1)]


def get_init_inputs():
    return []
