"""Tanh through the advanced Tanh API. Shapes with tails that are not multiples of 8, 16 or the core count."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        pass

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.tanh(x)


def get_input_groups():
    return [[torch.randn(16, 1000)], [torch.randn(3, 333)], [torch.randn(7)], [torch.randn(2, 5, 4099)]]


def get_inputs():
    return get_input_groups()[0]


def get_init_inputs():
    return []
