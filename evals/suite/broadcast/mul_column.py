"""x * s, with s one value per row.

category: broadcast
level: 1
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, s):
        return x * s


def get_inputs():
    return [torch.randn(64, 300), torch.randn(64, 1)]


def get_init_inputs():
    return []
