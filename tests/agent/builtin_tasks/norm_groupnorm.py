"""nn.GroupNorm with 3 groups."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, groups, channels):
        super().__init__()
        self.norm = nn.GroupNorm(groups, channels)
        with torch.no_grad():
            self.norm.weight.normal_()
            self.norm.bias.normal_()

    def forward(self, x):
        return self.norm(x)


def get_inputs():
    return [torch.randn(2, 6, 5, 9)]


def get_init_inputs():
    return [3, 6]
