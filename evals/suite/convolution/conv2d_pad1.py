"""nn.Conv2d 3x3 with padding 1 on an odd-width image.

category: convolution
level: 3
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 3, padding=1)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(2, 3, 16, 17)]


def get_init_inputs():
    return [3, 8]
