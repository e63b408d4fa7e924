"""Bicubic resize to a fixed size with align_corners=True."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def forward(self, x):
        return F.interpolate(x, size=(9, 13), mode="bicubic", align_corners=True)


def get_inputs():
    return [torch.randn(2, 3, 5, 7)]


def get_init_inputs():
    return []
