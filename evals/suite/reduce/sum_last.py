"""Sum over the last axis.

category: reduce
level: 1
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x.sum(dim=-1)


def get_inputs():
    return [torch.randn(64, 1000)]


def get_init_inputs():
    return []
