"""torch.mv with a long reduction (K split across cores)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        return torch.mv(a, v)


def get_input_groups():
    return [[torch.randn(128, 200), torch.randn(200)], [torch.randn(37, 20000), torch.randn(20000)]]


def get_inputs():
    return get_input_groups()[0]


def get_init_inputs():
    return []
