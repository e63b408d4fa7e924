"""Antialiased bilinear downsampling (a widened triangle filter: 5 taps per axis at half size)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def forward(self, x):
        return F.interpolate(x, size=(9, 7), mode="bilinear", align_corners=False, antialias=True)


def get_inputs():
    return [torch.rand(2, 3, 18, 14)]


def get_init_inputs():
    return []
