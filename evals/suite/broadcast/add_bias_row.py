"""x + bias, the bias a parameter over the last axis.

category: broadcast
level: 1
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(features))

    def forward(self, x):
        return x + self.bias


def get_inputs():
    return [torch.randn(33, 257)]


def get_init_inputs():
    return [257]
