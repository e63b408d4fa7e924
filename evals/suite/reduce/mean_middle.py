"""Mean over the middle axis of a 3-D tensor.

category: reduce
level: 1
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x.mean(dim=1)


def get_inputs():
    return [torch.randn(8, 129, 40)]


def get_init_inputs():
    return []
