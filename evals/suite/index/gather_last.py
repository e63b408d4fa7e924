"""torch.gather along the last axis.

category: index
level: 3
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, idx):
        return torch.gather(x, 1, idx)


def get_inputs():
    return [torch.randn(32, 100), torch.randint(0, 100, (32, 10))]


def get_init_inputs():
    return []
