"""Outer difference a[:, None] - b[None, :].

category: broadcast
level: 1
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return a - b


def get_inputs():
    return [torch.randn(40, 1), torch.randn(1, 77)]


def get_init_inputs():
    return []
