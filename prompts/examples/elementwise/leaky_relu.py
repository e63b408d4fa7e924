"""LeakyReLU with a non-default slope, on shapes with awkward tails."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, negative_slope: float = 0.01):
        super().__init__()
        self.negative_slope = negative_slope

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.leaky_relu(x, negative_slope=self.negative_slope)


def get_input_groups():
    return [[torch.randn(16, 1000)], [torch.randn(3, 333)], [torch.randn(7)], [torch.randn(2, 5, 4099)]]


def get_inputs():
    return get_input_groups()[0]


def get_init_inputs():
    return [0.2]
