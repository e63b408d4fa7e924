"""Mean hinge loss with +-1 targets.

category: loss
level: 1
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, pred, target):
        return torch.mean(torch.clamp(1 - pred * target, min=0))


def get_inputs():
    return [torch.randn(64, 100), torch.randint(0, 2, (64, 100)).float() * 2 - 1]


def get_init_inputs():
    return []
