"""One Adam step (no bias correction), moments given as inputs.

category: optimizer
level: 2
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, lr, b1, b2, eps):
        super().__init__()
        self.lr, self.b1, self.b2, self.eps = lr, b1, b2, eps

    def forward(self, param, grad, m, v):
        m2 = self.b1 * m + (1 - self.b1) * grad
        v2 = self.b2 * v + (1 - self.b2) * grad * grad
        return param - self.lr * m2 / (torch.sqrt(v2) + self.eps)


def get_inputs():
    return [torch.randn(31, 257), torch.randn(31, 257), 0.1 * torch.randn(31, 257), torch.rand(31, 257)]


def get_init_inputs():
    return [0.001, 0.9, 0.999, 1e-8]
