"""nn.Conv1d, kernel 3, no padding.

category: convolution
level: 3
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, cin, cout, k):
        super().__init__()
        self.conv = nn.Conv1d(cin, cout, k)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(2, 4, 50)]


def get_init_inputs():
    return [4, 8, 3]
