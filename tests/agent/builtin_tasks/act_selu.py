"""torch.selu."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        pass

    def forward(self, x):
        return torch.selu(x)


def get_inputs():
    return [torch.randn(7, 300)]


def get_init_inputs():
    return []
