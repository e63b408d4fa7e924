"""nn.LeakyReLU with the slope given at construction.

category: activation
level: 1
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, negative_slope):
        super().__init__()
        self.act = nn.LeakyReLU(negative_slope)

    def forward(self, x):
        return self.act(x)


def get_inputs():
    return [torch.randn(17, 333)]


def get_init_inputs():
    return [0.05]
