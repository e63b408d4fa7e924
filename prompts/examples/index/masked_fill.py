"""Tensor.masked_fill with -inf under a random bool mask."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return x.masked_fill(mask, float("-inf"))


def get_input_groups():
    return [[torch.randn(19, 300), torch.rand(19, 300) > 0.5], [torch.randn(4, 33, 65), torch.rand(4, 33, 65) > 0.3]]


def get_inputs():
    return get_input_groups()[0]


def get_init_inputs():
    return []
