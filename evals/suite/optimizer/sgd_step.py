"""One plain SGD step: param - lr * grad.

category: optimizer
level: 1
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, lr):
        super().__init__()
        self.lr = lr

    def forward(self, param, grad):
        return param - self.lr * grad


def get_inputs():
    return [torch.randn(17, 999), torch.randn(17, 999)]


def get_init_inputs():
    return [0.01]
