"""Nearest upsampling (2-D, unequal factors): each source row gathered once and stored to the rows it fills."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def forward(self, x):
        return F.interpolate(x, size=(14, 20), mode="nearest")


def get_inputs():
    return [torch.randn(2, 3, 5, 7)]


def get_init_inputs():
    return []
