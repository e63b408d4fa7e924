"""Depthwise 3x3 convolution (groups = channels).

category: convolution
level: 3
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, groups=channels)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(1, 8, 14, 15)]


def get_init_inputs():
    return [8]
