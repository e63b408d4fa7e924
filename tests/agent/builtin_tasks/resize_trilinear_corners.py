"""Trilinear upsampling by a scale factor with align_corners=True."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def forward(self, x):
        return F.interpolate(x, scale_factor=2.0, mode="trilinear", align_corners=True)


def get_inputs():
    return [torch.randn(1, 2, 3, 4, 8)]


def get_init_inputs():
    return []
