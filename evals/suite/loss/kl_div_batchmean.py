"""KL divergence between two softmax distributions, batchmean.

category: loss
level: 2
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return F.kl_div(F.log_softmax(a, dim=-1), F.softmax(b, dim=-1), reduction="batchmean")


def get_inputs():
    return [torch.randn(16, 100), torch.randn(16, 100)]


def get_init_inputs():
    return []
