"""F.max_pool1d, kernel 4, stride 2.

category: pooling
level: 1
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.max_pool1d(x, 4, 2)


def get_inputs():
    return [torch.randn(4, 6, 101)]


def get_init_inputs():
    return []
