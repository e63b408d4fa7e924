"""nn.AvgPool3d with padding (MultiKernelBench average_pooling_3d, smaller)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, kernel_size: int, stride: int, padding: int):
        super().__init__()
        self.pool = nn.AvgPool3d(kernel_size=kernel_size, stride=stride, padding=padding)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.pool(x)


def get_input_groups():
    return [[torch.randn(1, 4, 8, 8, 8)], [torch.randn(2, 2, 5, 7, 6)], [torch.randn(1, 1, 6, 40, 10)],
            [torch.randn(1, 2, 5, 33, 13)]]


def get_inputs():
    return get_input_groups()[0]


def get_init_inputs():
    return [3, 2, 1]
