"""leaky_relu with the slope from init."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, slope):
        super().__init__()
        self.slope = slope

    def forward(self, x):
        return F.leaky_relu(x, self.slope)


def get_inputs():
    return [torch.randn(9, 333)]


def get_init_inputs():
    return [0.2]
