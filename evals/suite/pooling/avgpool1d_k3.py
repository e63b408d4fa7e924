"""nn.AvgPool1d, kernel 3, stride 3.

category: pooling
level: 1
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.AvgPool1d(3, stride=3)

    def forward(self, x):
        return self.pool(x)


def get_inputs():
    return [torch.randn(5, 8, 99)]


def get_init_inputs():
    return []
