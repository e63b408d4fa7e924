"""x.masked_fill(mask, 0.25) with a bool mask of x's shape."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, mask):
        return x.masked_fill(mask, 0.25)


def get_input_groups():
    return [[torch.rand(7, 90), torch.randint(0, 2, (7, 90), dtype=torch.bool)],
            [torch.rand(4099), torch.randint(0, 2, (4099,), dtype=torch.bool)]]


def get_inputs():
    return get_input_groups()[0]


def get_init_inputs():
    return []
