"""a * b + c with three broadcasting shapes.

category: broadcast
level: 2
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b, c):
        return a * b + c


def get_inputs():
    return [torch.randn(8, 1, 50), torch.randn(1, 6, 50), torch.randn(50)]


def get_init_inputs():
    return []
