"""x + bias with the bias along the last axis (nn.Linear's bias add): the program's inner == 1 path."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, axis: int = -1):
        super().__init__()

    def forward(self, x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        return x + bias


def get_input_groups():
    return [[torch.randn(16, 300), torch.randn(300)], [torch.randn(3, 7), torch.randn(7)],
            [torch.randn(100, 33), torch.randn(33)]]


def get_inputs():
    return get_input_groups()[0]


def get_init_inputs():
    return [-1]
