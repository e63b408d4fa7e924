"""ELU: y = x for x > 0, alpha * (exp(x) - 1) otherwise; written without a select as relu(x) + alpha * (exp(min(x, 0)) - 1). Shapes with tails that are not multiples of 8, 16 or the core count."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, alpha: float = 1.0):
        super().__init__()
        self.alpha = alpha

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.elu(x, alpha=self.alpha)


def get_input_groups():
    return [[torch.randn(16, 1000)], [torch.randn(3, 333)], [torch.randn(7)], [torch.randn(2, 5, 4099)]]


def get_inputs():
    return get_input_groups()[0]


def get_init_inputs():
    return [1.5]
