"""nn.Embedding lookup.

category: index
level: 3
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, num, dim):
        super().__init__()
        self.table = nn.Embedding(num, dim)

    def forward(self, idx):
        return self.table(idx)


def get_inputs():
    return [torch.randint(0, 500, (8, 13))]


def get_init_inputs():
    return [500, 64]
