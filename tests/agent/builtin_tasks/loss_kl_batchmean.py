"""KL divergence, batch mean."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        pass

    def forward(self, predictions, targets):
        return F.kl_div(torch.log(predictions), targets, reduction="batchmean")


def get_inputs():
    return [torch.randn(8, 100).softmax(dim=-1), torch.randn(8, 100).softmax(dim=-1)]


def get_init_inputs():
    return []
