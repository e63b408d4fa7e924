"""ReLU on rows of 1001 floats (4004-byte rows: not a 32-byte multiple).

category: activation
level: 1
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(x)


def get_inputs():
    return [torch.randn(13, 1001)]


def get_init_inputs():
    return []
