"""a & b of bool tensors with broadcasting, then ~ of the result: a bool result."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, a, b):
        return ~(a & b)


def get_inputs():
    return [torch.randint(0, 2, (4, 30, 70), dtype=torch.bool), torch.randint(0, 2, (1, 30, 1), dtype=torch.bool)]


def get_init_inputs():
    return []
