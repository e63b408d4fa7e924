"""Zero the elements where a mask is set.

category: index
level: 2
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, mask):
        return x.masked_fill(mask, 0.0)


def get_inputs():
    return [torch.randn(19, 300), torch.rand(19, 300) > 0.5]


def get_init_inputs():
    return []
