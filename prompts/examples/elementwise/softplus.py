"""Softplus (beta 1): y = log(1 + exp(x)), computed as max(x, 0) + log(1 + exp(-|x|)) so large |x| neither overflows nor loses x. Shapes with tails that are not multiples of 8, 16 or the core count."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        pass

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.softplus(x)


def get_input_groups():
    return [[3 * torch.randn(16, 1000)], [3 * torch.randn(3, 333)], [3 * torch.randn(7)], [3 * torch.randn(2, 5, 4099)]]


def get_inputs():
    return get_input_groups()[0]


def get_init_inputs():
    return []
