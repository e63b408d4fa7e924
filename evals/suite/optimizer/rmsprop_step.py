"""RMSprop: the square average is updated in place, the new parameter returned.

category: optimizer
level: 2
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, lr, alpha, eps):
        super().__init__()
        self.lr, self.alpha, self.eps = lr, alpha, eps

    def forward(self, param, grad, sq):
        sq.mul_(self.alpha).addcmul_(grad, grad, value=1 - self.alpha)
        return param - self.lr * grad / (sq.sqrt() + self.eps)


def get_inputs():
    return [torch.randn(15, 640), torch.randn(15, 640), torch.rand(15, 640)]


def get_init_inputs():
    return [0.01, 0.99, 1e-8]
