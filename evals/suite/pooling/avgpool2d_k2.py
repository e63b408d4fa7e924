"""nn.AvgPool2d, kernel 2.

category: pooling
level: 1
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.AvgPool2d(2)

    def forward(self, x):
        return self.pool(x)


def get_inputs():
    return [torch.randn(3, 5, 16, 18)]


def get_init_inputs():
    return []
