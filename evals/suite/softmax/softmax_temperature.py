"""Softmax of x / T over the last axis of a 3-D tensor.

category: softmax
level: 2
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, temperature):
        super().__init__()
        self.temperature = temperature

    def forward(self, x):
        return torch.softmax(x / self.temperature, dim=-1)


def get_inputs():
    return [torch.randn(8, 4, 129)]


def get_init_inputs():
    return [0.7]
