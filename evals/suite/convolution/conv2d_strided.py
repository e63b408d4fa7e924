"""nn.Conv2d 2x3 kernel, stride 2, padding 1, dilation 2, with bias (the configuration as init arguments).

category: convolution
level: 3
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, cin, cout, kernel, stride, padding, dilation):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, kernel, stride=stride, padding=padding, dilation=dilation)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(2, 4, 15, 21)]


def get_init_inputs():
    return [4, 5, (2, 3), 2, 1, 2]
