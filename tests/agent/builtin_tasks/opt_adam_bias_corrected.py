"""Adam with bias correction, both moments in place."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, lr, b1, b2, eps, step):
        super().__init__()
        self.lr, self.b1, self.b2, self.eps, self.step = lr, b1, b2, eps, step

    def forward(self, param, grad, m, v):
        m.mul_(self.b1).add_(grad, alpha=1 - self.b1)
        v.mul_(self.b2).addcmul_(grad, grad, value=1 - self.b2)
        m_hat = m / (1 - self.b1 ** self.step)
        v_hat = v / (1 - self.b2 ** self.step)
        return param - self.lr * m_hat / (v_hat.sqrt() + self.eps)


def get_inputs():
    return [torch.randn(17, 60), torch.randn(17, 60), 0.1 * torch.randn(17, 60), torch.rand(17, 60)]


def get_init_inputs():
    return [0.002, 0.9, 0.999, 1e-8, 4]
