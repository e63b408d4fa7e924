"""Mish: x * tanh(softplus(x)).

category: activation
level: 2
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x * torch.tanh(F.softplus(x))


def get_inputs():
    return [torch.randn(11, 901)]


def get_init_inputs():
    return []
