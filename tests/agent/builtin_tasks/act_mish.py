"""mish."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        pass

    def forward(self, x):
        return F.mish(x)


def get_inputs():
    return [torch.randn(4, 777)]


def get_init_inputs():
    return []
