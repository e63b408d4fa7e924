"""nn.Embedding lookup of a 2-D batch of int64 indices."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, num: int, dim: int):
        super().__init__()
        self.table = nn.Embedding(num, dim)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        return self.table(idx)


def get_input_groups():
    return [[torch.randint(0, 500, (8, 13))], [torch.randint(0, 500, (3, 70))]]


def get_inputs():
    return get_input_groups()[0]


def get_init_inputs():
    return [500, 72]
