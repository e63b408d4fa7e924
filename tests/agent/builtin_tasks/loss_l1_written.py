"""mean absolute error written out."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        pass

    def forward(self, predictions, targets):
        return torch.mean(torch.abs(predictions - targets))


def get_inputs():
    return [torch.randn(13, 77), torch.randn(13, 77)]


def get_init_inputs():
    return []
