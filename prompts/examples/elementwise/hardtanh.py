"""HardTanh: clamp(x, min_val, max_val). Shapes with tails that are not multiples of 8, 16 or the core count."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, min_val: float = -1.0, max_val: float = 1.0):
        super().__init__()
        self.min_val = min_val
        self.max_val = max_val

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.hardtanh(x, self.min_val, self.max_val)


def get_input_groups():
    return [[torch.randn(16, 1000)], [torch.randn(3, 333)], [torch.randn(7)], [torch.randn(2, 5, 4099)]]


def get_inputs():
    return get_input_groups()[0]


def get_init_inputs():
    return [-0.5, 1.25]
