"""index_add along axis 0 with repeated indices (their rows accumulate)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, indices, values):
        return x.index_add(dim=0, index=indices, source=values)


def get_inputs():
    return [torch.randn(6, 40), torch.tensor([0, 5, 2, 5, 5, 1, 0]), torch.randn(7, 40)]


def get_init_inputs():
    return []
