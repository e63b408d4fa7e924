"""Minimum over the first axis.

category: reduce
level: 1
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.amin(x, dim=0)


def get_inputs():
    return [torch.randn(300, 77)]


def get_init_inputs():
    return []
