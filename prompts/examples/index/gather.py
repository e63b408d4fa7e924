"""torch.gather along the last axis of a 2-D tensor (int64 indices)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, idx: torch.Tensor) -> torch.Tensor:
        return torch.gather(x, 1, idx)


def get_input_groups():
    return [[torch.randn(32, 100), torch.randint(0, 100, (32, 10))],
            [torch.randn(7, 3001), torch.randint(0, 3001, (7, 2500))],
            [torch.randn(50, 8), torch.randint(0, 8, (50, 37))]]


def get_inputs():
    return get_input_groups()[0]


def get_init_inputs():
    return []
