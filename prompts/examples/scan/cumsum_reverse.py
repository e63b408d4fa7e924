"""Reverse cumulative sum (from the end) along the last axis."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim: int, reverse: bool = True):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cumsum(x.flip(self.dim), dim=self.dim).flip(self.dim)


def get_input_groups():
    return [[torch.randn(16, 300)], [torch.randn(3, 7, 9)]]


def get_inputs():
    return get_input_groups()[0]


def get_init_inputs():
    return [-1, True]
