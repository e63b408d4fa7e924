"""torch.prod(x, dim=self.dim) with dim = 1 on several ranks and awkward sizes."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.prod(x, dim=self.dim)


def get_input_groups():
    return [[1 + 0.1 * torch.randn(4, 37, 50)], [1 + 0.1 * torch.randn(6, 300)], [1 + 0.1 * torch.randn(2, 9, 3)]]


def get_inputs():
    return get_input_groups()[0]


def get_init_inputs():
    return [1]
