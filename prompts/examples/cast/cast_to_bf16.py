"""x.to(torch.bfloat16) from float32 (and float16 as a dtype variant)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.to(torch.bfloat16)


def get_input_groups():
    return [[torch.randn(16, 1000)], [torch.randn(3, 333)], [torch.randn(7)]]


def get_inputs():
    return get_input_groups()[0]


def get_init_inputs():
    return []
