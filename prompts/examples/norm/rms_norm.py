"""RMSNorm over the last axis (LLaMA style) with a random weight."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim: int = 1000, eps: float = 1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.randn(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def get_input_groups():
    return [[torch.randn(16, 1000)], [torch.randn(3, 5, 1000)], [0.01 * torch.randn(2, 1000)]]


def get_inputs():
    return get_input_groups()[0]


def get_init_inputs():
    return [1000, 1e-6]
