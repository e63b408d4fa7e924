"""Bilinear upsampling by 2 (align_corners=False) of a half-precision NCHW tensor with odd sides.

category: resize
level: 2
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.interpolate(x, scale_factor=2.0, mode="bilinear", align_corners=False)


def get_inputs():
    return [torch.rand(3, 5, 19, 45).half()]


def get_init_inputs():
    return []
