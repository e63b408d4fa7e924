"""torch.where over a bool condition and two tensors of one shape."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, c, left, right):
        return torch.where(c, left, right)


def get_input_groups():
    return [[torch.randint(0, 2, (8, 77), dtype=torch.bool), torch.rand(8, 77), torch.rand(8, 77)],
            [torch.randint(0, 2, (5000,), dtype=torch.bool), torch.rand(5000), torch.rand(5000)]]


def get_inputs():
    return get_input_groups()[0]


def get_init_inputs():
    return []
