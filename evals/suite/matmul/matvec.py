"""Matrix-vector product.

category: matmul
level: 2
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, v):
        return torch.mv(a, v)


def get_inputs():
    return [torch.randn(128, 200), torch.randn(200)]


def get_init_inputs():
    return []
