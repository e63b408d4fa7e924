"""nn.Conv2d with bias: a 3x3 kernel, padding 1, on odd image sizes."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, cin: int, cout: int, kernel, stride: int, padding: int, dilation: int):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, kernel, stride=stride, padding=padding, dilation=dilation)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


def get_input_groups():
    return [[torch.randn(2, 3, 16, 17)], [torch.randn(1, 3, 16, 17)]]


def get_inputs():
    return get_input_groups()[0]


def get_init_inputs():
    return [3, 8, 3, 1, 1, 1]
