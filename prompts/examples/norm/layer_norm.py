"""nn.LayerNorm over the last two dimensions, with non-trivial weight and bias."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, normalized_shape: tuple = (8, 125), eps: float = 1e-5):
        super().__init__()
        self.ln = nn.LayerNorm(normalized_shape, eps=eps)
        with torch.no_grad():
            self.ln.weight.normal_()
            self.ln.bias.normal_()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.ln(x)


def get_input_groups():
    return [[torch.randn(4, 8, 125)], [3 + 2 * torch.randn(1, 8, 125)], [torch.randn(2, 3, 8, 125)]]


def get_inputs():
    return get_input_groups()[0]


def get_init_inputs():
    return [(8, 125), 1e-5]
