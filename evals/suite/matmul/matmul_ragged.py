"""(33x70) @ (70x45): no dimension a multiple of 16.

category: matmul
level: 2
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.matmul(a, b)


def get_inputs():
    return [torch.randn(33, 70), torch.randn(70, 45)]


def get_init_inputs():
    return []
