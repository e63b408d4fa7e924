"""torch.where with a bool condition and two tensors.

category: index
level: 2
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, cond, a, b):
        return torch.where(cond, a, b)


def get_inputs():
    return [torch.rand(37, 250) > 0.4, torch.randn(37, 250), torch.randn(37, 250)]


def get_init_inputs():
    return []
