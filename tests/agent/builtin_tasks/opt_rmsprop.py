"""RMSprop: square average in place, new parameter returned."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, lr, alpha, eps):
        super().__init__()
        self.lr, self.alpha, self.eps = lr, alpha, eps

    def forward(self, param, grad, sq):
        sq.mul_(self.alpha).addcmul_(grad, grad, value=1 - self.alpha)
        return param - self.lr * grad / (sq.sqrt() + self.eps)


def get_inputs():
    return [torch.randn(30, 70), torch.randn(30, 70), torch.rand(30, 70)]


def get_init_inputs():
    return [0.01, 0.99, 1e-8]
