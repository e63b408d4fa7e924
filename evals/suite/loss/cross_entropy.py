"""Cross entropy over 37 classes with integer targets.

category: loss
level: 3
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, logits, target):
        return F.cross_entropy(logits, target)


def get_inputs():
    return [torch.randn(50, 37), torch.randint(0, 37, (50,))]


def get_init_inputs():
    return []
