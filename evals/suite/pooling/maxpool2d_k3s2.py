"""nn.MaxPool2d, kernel 3, stride 2, odd spatial sizes.

category: pooling
level: 2
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.MaxPool2d(3, stride=2)

    def forward(self, x):
        return self.pool(x)


def get_inputs():
    return [torch.randn(2, 4, 19, 23)]


def get_init_inputs():
    return []
