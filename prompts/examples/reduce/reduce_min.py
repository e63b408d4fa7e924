"""torch.amin(x, dim=self.dim, keepdim=True) with dim = 2, keepdim on several ranks and awkward sizes."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim: int, keepdim: bool = True):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.amin(x, dim=self.dim, keepdim=True)


def get_input_groups():
    return [[torch.randn(4, 6, 50)], [torch.randn(3, 5, 1000)], [torch.randn(2, 2, 3)]]


def get_inputs():
    return get_input_groups()[0]


def get_init_inputs():
    return [2, True]
