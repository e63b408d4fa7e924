"""nn.Conv2d with bias, stride 2, padding 1 and dilation 2, a 2x3 kernel, on odd image sizes."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, cin: int, cout: int, kernel, stride: int, padding: int, dilation: int):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, kernel, stride=stride, padding=padding, dilation=dilation)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


def get_input_groups():
    return [[torch.randn(2, 4, 15, 21)], [torch.randn(3, 4, 9, 40)]]


def get_inputs():
    return get_input_groups()[0]


def get_init_inputs():
    return [4, 5, (2, 3), 2, 1, 2]
