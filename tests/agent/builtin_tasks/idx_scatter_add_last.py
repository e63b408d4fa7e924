"""x.scatter_add along the last axis (repeated indices accumulate)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, index, updates):
        return x.scatter_add(dim=1, index=index, src=updates)


def get_input_groups():
    return [[torch.zeros(5, 96), torch.randint(0, 96, (5, 40)), torch.rand(5, 40)],
            [torch.rand(9, 33), torch.randint(0, 33, (9, 70)), torch.rand(9, 70)]]


def get_inputs():
    return get_input_groups()[0]


def get_init_inputs():
    return []
