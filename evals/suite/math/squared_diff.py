"""(x - y) ** 2.

category: math
level: 1
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        return (x - y) ** 2


def get_inputs():
    return [torch.randn(25, 401), torch.randn(25, 401)]


def get_init_inputs():
    return []
