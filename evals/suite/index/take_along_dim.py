"""torch.take_along_dim on the last axis of a 2-D tensor.

category: index
level: 3
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, idx):
        return torch.take_along_dim(x, idx, dim=1)


def get_inputs():
    return [torch.randn(20, 513), torch.randint(0, 513, (20, 129))]


def get_init_inputs():
    return []
