"""Global average pooling (adaptive to 1x1).

category: pooling
level: 2
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.adaptive_avg_pool2d(x, 1)


def get_inputs():
    return [torch.randn(4, 32, 7, 9)]


def get_init_inputs():
    return []
