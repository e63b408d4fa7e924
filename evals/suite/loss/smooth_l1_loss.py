"""Smooth L1 (Huber with beta 1).

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
        return F.smooth_l1_loss(pred, target, beta=1.0)


def get_inputs():
    return [torch.randn(9, 1111) * 2, torch.randn(9, 1111)]


def get_init_inputs():
    return []
