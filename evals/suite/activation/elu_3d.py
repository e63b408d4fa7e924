"""ELU on a 3-D tensor.

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
        return F.elu(x, alpha=1.0)


def get_inputs():
    return [torch.randn(6, 4, 250)]


def get_init_inputs():
    return []
