"""tanh on a 1-D tensor whose length is prime.

category: activation
level: 1
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.tanh(x)


def get_inputs():
    return [torch.randn(4099)]


def get_init_inputs():
    return []
