"""x.masked_fill(mask, -inf) with a bool mask of x's shape."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, scores, mask):
        return scores.masked_fill(mask, float("-inf"))


def get_input_groups():
    return [[torch.rand(3, 50, 20), torch.randint(0, 2, (3, 50, 20), dtype=torch.bool)],
            [torch.rand(1000), torch.randint(0, 2, (1000,), dtype=torch.bool)]]


def get_inputs():
    return get_input_groups()[0]


def get_init_inputs():
    return []
