"""log_softmax along dim 1 of a 2-D tensor, the dim an init argument with a default."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim: int = 1):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.log_softmax(x, dim=self.dim)


def get_inputs():
    return [4 * torch.randn(6, 3000)]


def get_init_inputs():
    return []
