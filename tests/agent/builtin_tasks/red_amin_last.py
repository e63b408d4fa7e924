"""amin over the last axis of a 3-D tensor."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        pass

    def forward(self, x):
        return torch.amin(x, dim=2)


def get_inputs():
    return [torch.randn(3, 5, 500)]


def get_init_inputs():
    return []
