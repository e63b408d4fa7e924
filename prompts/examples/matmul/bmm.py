"""torch.bmm with ragged matrix sizes."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.bmm(a, b)


def get_input_groups():
    return [[torch.randn(4, 17, 32), torch.randn(4, 32, 19)], [torch.randn(3, 140, 64), torch.randn(3, 64, 300)]]


def get_inputs():
    return get_input_groups()[0]


def get_init_inputs():
    return []
