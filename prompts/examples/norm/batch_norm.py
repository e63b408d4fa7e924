"""nn.BatchNorm2d in inference mode with non-trivial running statistics and affine parameters."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, num_features: int = 8, eps: float = 1e-5):
        super().__init__()
        self.bn = nn.BatchNorm2d(num_features, eps=eps)
        with torch.no_grad():
            self.bn.weight.normal_()
            self.bn.bias.normal_()
            self.bn.running_mean.normal_()
            self.bn.running_var.uniform_(0.5, 2.0)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.bn(x)


def get_input_groups():
    return [[torch.randn(2, 8, 16, 16)], [torch.randn(3, 8, 5, 7)], [torch.randn(1, 8, 1, 300)]]


def get_inputs():
    return get_input_groups()[0]


def get_init_inputs():
    return [8, 1e-5]
