"""torch.bmm, then a same-shape residual add and a per-column bias: vector epilogue over the batches."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(n))

    def forward(self, a, b, r):
        return torch.bmm(a, b) + r + self.bias


def get_input_groups():
    return [[torch.randn(2, 17, 32), torch.randn(2, 32, 24), torch.randn(2, 17, 24)],
            [torch.randn(3, 40, 16), torch.randn(3, 16, 24), torch.randn(3, 40, 24)]]


def get_inputs():
    return get_input_groups()[0]


def get_init_inputs():
    return [24]
