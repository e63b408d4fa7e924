"""Mean squared error (a scalar).

category: loss
level: 1
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, pred, target):
        return F.mse_loss(pred, target)


def get_inputs():
    return [torch.randn(32, 1000), torch.randn(32, 1000)]


def get_init_inputs():
    return []
