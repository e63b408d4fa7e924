"""torch.index_select along the last axis of a 2-D tensor (int64 indices, repeats allowed)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, idx: torch.Tensor) -> torch.Tensor:
        return torch.index_select(x, 1, idx)


def get_input_groups():
    return [[torch.randn(16, 100), torch.randint(0, 100, (37,))],
            [torch.randn(5, 3001), torch.randint(0, 3001, (2500,))]]


def get_inputs():
    return get_input_groups()[0]


def get_init_inputs():
    return []
