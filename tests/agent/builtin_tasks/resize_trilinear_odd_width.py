"""Trilinear upsampling of rows 5 elements wide (not a multiple of the 32-byte block), align_corners=True."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def forward(self, x):
        return F.interpolate(x, scale_factor=(2, 2, 2), mode="trilinear", align_corners=True)


def get_inputs():
    return [torch.randn(2, 3, 4, 6, 5)]


def get_init_inputs():
    return []
