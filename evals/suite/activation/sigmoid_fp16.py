"""Sigmoid in float16 (777-element rows: 1554 bytes).

category: activation
level: 1
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.sigmoid(x)


def get_inputs():
    return [torch.randn(9, 777).half()]


def get_init_inputs():
    return []
