"""nn.MaxPool2d with stride 1 and padding: the window over H is folded by doubling (rows in the padding -inf)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.MaxPool2d(kernel_size=4, stride=1, padding=1)

    def forward(self, x):
        return self.pool(x)


def get_inputs():
    return [torch.randn(2, 3, 41, 37)]


def get_init_inputs():
    return []
