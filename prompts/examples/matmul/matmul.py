"""C = A @ B. Shapes with M, N and K that are not multiples of 16, one with a long K."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.matmul(a, b)


def get_input_groups():
    return [[torch.randn(64, 96), torch.randn(96, 80)], [torch.randn(33, 70), torch.randn(70, 45)],
            [torch.randn(150, 2050), torch.randn(2050, 300)]]


def get_inputs():
    return get_input_groups()[0]


def get_init_inputs():
    return []
