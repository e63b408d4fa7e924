"""nn.BatchNorm2d in inference."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.norm = nn.BatchNorm2d(channels)
        with torch.no_grad():
            self.norm.weight.normal_()
            self.norm.bias.normal_()
            self.norm.running_mean.normal_()
            self.norm.running_var.uniform_(0.5, 2.0)

    def forward(self, x):
        return self.norm(x)


def get_inputs():
    return [torch.randn(2, 3, 9, 10)]


def get_init_inputs():
    return [3]
