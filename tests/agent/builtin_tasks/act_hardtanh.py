"""hardtanh with asymmetric bounds."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        pass

    def forward(self, x):
        return F.hardtanh(x, -0.8, 0.9)


def get_inputs():
    return [torch.randn(3, 1000)]


def get_init_inputs():
    return []
