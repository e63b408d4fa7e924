"""torch.index_select along the last axis."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, indices):
        return torch.index_select(x, dim=1, index=indices)


def get_input_groups():
    return [[torch.rand(6, 90), torch.randint(0, 90, (40,))], [torch.rand(13, 31), torch.randint(0, 31, (77,))]]


def get_inputs():
    return get_input_groups()[0]


def get_init_inputs():
    return []
