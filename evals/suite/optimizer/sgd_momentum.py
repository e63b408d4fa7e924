"""SGD with momentum: the buffer is updated in place, the new parameter returned.

category: optimizer
level: 2
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, lr, momentum):
        super().__init__()
        self.lr, self.momentum = lr, momentum

    def forward(self, param, grad, buf):
        buf.mul_(self.momentum).add_(grad)
        return param - self.lr * buf


def get_inputs():
    return [torch.randn(23, 411), torch.randn(23, 411), torch.randn(23, 411)]


def get_init_inputs():
    return [0.05, 0.9]
