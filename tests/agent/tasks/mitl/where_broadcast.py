"""torch.where with a condition broadcast over the first and last axes."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, cond, x, y):
        return torch.where(cond, x, y)


def get_inputs():
    return [torch.randint(0, 2, (1, 40, 1), dtype=torch.bool), torch.rand(5, 40, 24), torch.rand(5, 40, 24)]


def get_init_inputs():
    return []
