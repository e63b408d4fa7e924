"""nn.Linear with bias.

category: matmul
level: 2
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, inp, out):
        super().__init__()
        self.fc = nn.Linear(inp, out)

    def forward(self, x):
        return self.fc(x)


def get_inputs():
    return [torch.randn(25, 96)]


def get_init_inputs():
    return [96, 40]
