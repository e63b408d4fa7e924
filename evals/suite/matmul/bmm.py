"""Batched matrix product.

category: matmul
level: 2
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.bmm(a, b)


def get_inputs():
    return [torch.randn(4, 17, 32), torch.randn(4, 32, 19)]


def get_init_inputs():
    return []
