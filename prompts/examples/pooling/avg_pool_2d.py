"""nn.AvgPool2d with padding (MultiKernelBench average_pooling_2d, smaller)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, kernel_size: int, stride: int, padding: int):
        super().__init__()
        self.pool = nn.AvgPool2d(kernel_size=kernel_size, stride=stride, padding=padding)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.pool(x)


def get_input_groups():
    return [[torch.randn(2, 4, 16, 16)], [torch.randn(1, 3, 9, 11)], [torch.randn(1, 2, 40, 12)]]


def get_inputs():
    return get_input_groups()[0]


def get_init_inputs():
    return [3, 2, 1]
