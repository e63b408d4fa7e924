"""|x| * 1.5 - 0.25.

category: math
level: 1
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.abs(x) * 1.5 - 0.25


def get_inputs():
    return [torch.randn(19, 517)]


def get_init_inputs():
    return []
