"""F.max_pool2d with kernel 2."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        pass

    def forward(self, x):
        return F.max_pool2d(x, 2)


def get_inputs():
    return [torch.randn(2, 3, 17, 18)]


def get_init_inputs():
    return []
