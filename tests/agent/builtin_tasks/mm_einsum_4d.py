"""torch.einsum("bijl,lk->bijk"): a 4-D tensor times a matrix over its last axis (rows flattened)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, a, b):
        return torch.einsum("bijl,lk->bijk", a, b)


def get_input_groups():
    return [[torch.randn(2, 3, 5, 24), torch.randn(24, 20)], [torch.randn(1, 4, 33, 40), torch.randn(40, 70)]]


def get_inputs():
    return get_input_groups()[0]


def get_init_inputs():
    return []
