"""x.float() on float16 and bfloat16 inputs (the dtype variants of this task)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.float()


def get_input_groups():
    return [[torch.randn(16, 1000)], [torch.randn(3, 333)], [torch.randn(7)]]


def get_inputs():
    return get_input_groups()[0]


def get_init_inputs():
    return []
