"""nn.ConvTranspose2d, kernel 3, stride 2.

category: convolution
level: 3
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.conv = nn.ConvTranspose2d(cin, cout, 3, stride=2)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(1, 4, 7, 8)]


def get_init_inputs():
    return [4, 2]
