"""x divided by its Frobenius norm."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        pass

    def forward(self, x):
        return x / torch.norm(x, p="fro")


def get_inputs():
    return [torch.randn(6, 50, 40)]


def get_init_inputs():
    return []
