"""SELU over a 2-D tensor (our small stand-in for the suite's activation task)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.selu(x)


def get_inputs():
    return [3 * torch.randn(12, 1500)]


def get_init_inputs():
    return []
