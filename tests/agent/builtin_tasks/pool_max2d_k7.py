"""nn.MaxPool2d with 7 taps, stride 1 and padding 3: the window over H is folded by doubling (rows in the padding -inf)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.MaxPool2d(kernel_size=7, stride=1, padding=3)

    def forward(self, x):
        return self.pool(x)


def get_inputs():
    return [torch.randn(1, 2, 45, 20)]


def get_init_inputs():
    return []
