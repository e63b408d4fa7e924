"""a * b with broadcasting on both sides (MultiKernelBench elmentwise_mul_broadcast, smaller), plus a
last-axis broadcast in each direction."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return a * b


def get_input_groups():
    return [[torch.randn(4, 1, 300), torch.randn(1, 4, 300)], [torch.randn(3, 5, 1), torch.randn(5, 17)],
            [torch.randn(2, 3, 1, 7), torch.randn(3, 4, 1)], [torch.randn(9), torch.randn(6, 1)]]


def get_inputs():
    return get_input_groups()[0]


def get_init_inputs():
    return []
