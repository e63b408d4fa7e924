"""relu(a @ b) in float16.

category: matmul
level: 3
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.relu(a @ b)


def get_inputs():
    return [(torch.randn(32, 48) * 0.2).half(), (torch.randn(48, 24) * 0.2).half()]


def get_init_inputs():
    return []
