"""torch.max(x, dim=self.dim)[0] with dim = 0 on several ranks and awkward sizes."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.max(x, dim=self.dim)[0]


def get_input_groups():
    return [[torch.randn(9, 300)], [torch.randn(5, 3, 7)], [torch.randn(70, 2)]]


def get_inputs():
    return get_input_groups()[0]


def get_init_inputs():
    return [0]
