"""F.normalize over the last axis (p=2).

category: normalization
level: 1
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.normalize(x, p=2.0, dim=-1)


def get_inputs():
    return [torch.randn(40, 300)]


def get_init_inputs():
    return []
