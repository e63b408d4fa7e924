"""float16 sum over the last axis, keeping the axis.

category: reduce
level: 1
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x.sum(dim=-1, keepdim=True)


def get_inputs():
    return [(torch.rand(16, 250) - 0.5).half()]


def get_init_inputs():
    return []
