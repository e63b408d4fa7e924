"""y = |x| * 2 (the agent tests' task: small, two shape cases with ragged tails)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.abs(x) * 2.0


def get_input_groups():
    return [[torch.randn(8, 1000)], [torch.randn(3, 333)]]


def get_inputs():
    return get_input_groups()[0]


def get_init_inputs():
    return []
