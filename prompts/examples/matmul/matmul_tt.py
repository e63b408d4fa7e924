"""torch.matmul(A.T, B.T): both operands stored transposed."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.matmul(a.T, b.T)


def get_input_groups():
    return [[torch.randn(96, 64), torch.randn(80, 96)], [torch.randn(70, 33), torch.randn(300, 70)]]


def get_inputs():
    return get_input_groups()[0]


def get_init_inputs():
    return []
