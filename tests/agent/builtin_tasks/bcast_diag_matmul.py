"""torch.diag(a) @ b on two sizes: no GEMM, each row of b scaled by a."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, a, b):
        return torch.diag(a) @ b


def get_input_groups():
    return [[torch.randn(24), torch.randn(24, 40)], [torch.randn(7, ), torch.randn(7, 130)]]


def get_inputs():
    return get_input_groups()[0]


def get_init_inputs():
    return []
