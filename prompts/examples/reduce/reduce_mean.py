"""torch.mean(x, dim=self.dim) with dim = -1 on several ranks and awkward sizes."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.mean(x, dim=self.dim)


def get_input_groups():
    return [[torch.randn(16, 1000)], [torch.randn(5, 7)], [torch.randn(3, 2, 333)]]


def get_inputs():
    return get_input_groups()[0]


def get_init_inputs():
    return [-1]
