"""Softplus (beta 1, threshold 20).

category: activation
level: 1
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.softplus(x)


def get_inputs():
    return [torch.randn(21, 611) * 4]


def get_init_inputs():
    return []
