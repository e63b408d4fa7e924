"""sqrt(|x| + 1e-6).

category: math
level: 1
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.sqrt(torch.abs(x) + 1e-6)


def get_inputs():
    return [torch.randn(3, 3333)]


def get_init_inputs():
    return []
