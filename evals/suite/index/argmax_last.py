"""Index of the maximum over the last axis (int64).

category: index
level: 2
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.argmax(x, dim=-1)


def get_inputs():
    return [torch.randn(45, 211)]


def get_init_inputs():
    return []
