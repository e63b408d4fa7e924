"""A^T @ B with A stored K x M.

category: matmul
level: 2
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.matmul(a.T, b)


def get_inputs():
    return [torch.randn(96, 40), torch.randn(96, 70)]


def get_init_inputs():
    return []
