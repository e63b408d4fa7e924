"""product over axis 1 (values near 1)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        pass

    def forward(self, x):
        return torch.prod(x, dim=1)


def get_inputs():
    return [1 + 0.05 * torch.randn(20, 30)]


def get_init_inputs():
    return []
