"""nn.Hardswish."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.act = nn.Hardswish()

    def forward(self, x):
        return self.act(x)


def get_inputs():
    return [3 * torch.randn(6, 321)]


def get_init_inputs():
    return []
