"""x / (|scale| + 1) + bias: three inputs broadcasting against each other, one per-row scale (last axis
1) and one bias along the last axis; two shape cases of one rank."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, scale, bias):
        return x / (scale.abs() + 1.0) + bias


def get_input_groups():
    return [[torch.randn(4, 6, 33), torch.randn(6, 1), torch.randn(33)],
            [torch.randn(2, 5, 70), torch.randn(5, 1), torch.randn(70)]]


def get_inputs():
    return get_input_groups()[0]


def get_init_inputs():
    return []
