"""torch.where on a bool condition and two tensors."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, cond: torch.Tensor, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.where(cond, a, b)


def get_input_groups():
    return [[torch.rand(19, 300) > 0.5, torch.randn(19, 300), torch.randn(19, 300)],
            [torch.rand(5000) > 0.2, torch.randn(5000), torch.randn(5000)]]


def get_inputs():
    return get_input_groups()[0]


def get_init_inputs():
    return []
