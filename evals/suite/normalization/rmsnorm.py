"""RMSNorm written out: x / sqrt(mean(x^2) + eps) * weight.

category: normalization
level: 2
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, features, eps):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.rand(features) + 0.5)

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + self.eps) * self.weight


def get_inputs():
    return [torch.randn(20, 333)]


def get_init_inputs():
    return [333, 1e-6]
