"""x + bias.view(1, -1, 1, 1): a per-channel bias on NCHW (MultiKernelBench add_bias_four_dim_broadcast), small."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        return x + bias.view(1, -1, 1, 1)


def get_input_groups():
    return [[torch.randn(2, 16, 8, 8), torch.randn(16)], [torch.randn(3, 5, 7, 9), torch.randn(5)],
            [torch.randn(1, 40, 3, 100), torch.randn(40)]]


def get_inputs():
    return get_input_groups()[0]


def get_init_inputs():
    return []
