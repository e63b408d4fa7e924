"""x.half(): float32 (or, as a dtype variant, bfloat16) to float16."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.half()


def get_input_groups():
    return [[100 * torch.randn(16, 1000)], [torch.randn(3, 333)], [torch.randn(7)]]


def get_inputs():
    return get_input_groups()[0]


def get_init_inputs():
    return []
