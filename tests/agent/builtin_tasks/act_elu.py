"""ELU with alpha 0.7."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        pass

    def forward(self, x):
        return F.elu(x, alpha=0.7)


def get_inputs():
    return [torch.randn(10, 301)]


def get_init_inputs():
    return []
