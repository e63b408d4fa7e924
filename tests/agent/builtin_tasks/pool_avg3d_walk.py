"""nn.AvgPool3d(3, 2, 1) on planes of 17 output rows and rows too long for the UB whole (three chunks of columns):
the depth planes are walked once."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.AvgPool3d(kernel_size=3, stride=2, padding=1)

    def forward(self, x):
        return self.pool(x)


def get_inputs():
    return [torch.randn(1, 1, 5, 33, 700)]


def get_init_inputs():
    return []
