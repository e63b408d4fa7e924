"""nn.AvgPool3d(3, 2, 1) on whole rows: even and odd band rows, padding in D, H (the last unit's bottom row) and W
(an odd width whose last window ends past it)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.AvgPool3d(kernel_size=3, stride=2, padding=1)

    def forward(self, x):
        return self.pool(x)


def get_inputs():
    return [torch.randn(1, 2, 5, 33, 13)]


def get_init_inputs():
    return []
