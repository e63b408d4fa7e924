"""Tensor.scatter_add along the last axis, with repeated indices.

category: index
level: 3
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, idx, src):
        return x.scatter_add(1, idx, src)


def get_inputs():
    return [torch.randn(12, 200), torch.randint(0, 200, (12, 333)), torch.randn(12, 333)]


def get_init_inputs():
    return []
