"""A @ B^T with B stored N x K.

category: matmul
level: 2
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.matmul(a, b.T)


def get_inputs():
    return [torch.randn(50, 96), torch.randn(130, 96)]


def get_init_inputs():
    return []
