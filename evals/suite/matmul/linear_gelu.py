"""nn.Linear followed by GELU: a bias and activation epilogue after the matrix product.

category: matmul
level: 3
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, inp, out):
        super().__init__()
        self.fc = nn.Linear(inp, out)

    def forward(self, x):
        return torch.nn.functional.gelu(self.fc(x))


def get_inputs():
    return [torch.randn(33, 80)]


def get_init_inputs():
    return [80, 150]
