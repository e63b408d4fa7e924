"""Mean absolute error.

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
        return F.l1_loss(pred, target)


def get_inputs():
    return [torch.randn(17, 611), torch.randn(17, 611)]


def get_init_inputs():
    return []
