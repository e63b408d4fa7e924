"""x plus a (C, 1, 1) bias parameter."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(channels, 1, 1))

    def forward(self, x):
        return x + self.bias


def get_inputs():
    return [torch.randn(2, 8, 7, 9)]


def get_init_inputs():
    return [8]
