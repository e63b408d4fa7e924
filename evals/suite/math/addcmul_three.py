"""a + 0.5 * b * c over three inputs.

category: math
level: 2
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b, c):
        return a + 0.5 * b * c


def get_inputs():
    return [torch.randn(10, 999), torch.randn(10, 999), torch.randn(10, 999)]


def get_init_inputs():
    return []
