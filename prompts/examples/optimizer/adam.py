"""One Adam step at step 3: the moments are updated in place, the new parameter is returned."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, lr: float = 1e-3, beta1: float = 0.9, beta2: float = 0.999, eps: float = 1e-8, step: int = 1):
        super().__init__()
        self.lr, self.beta1, self.beta2, self.eps, self.step = lr, beta1, beta2, eps, step

    def forward(self, param, grad, m, v):
        m.mul_(self.beta1).add_(grad, alpha=1 - self.beta1)
        v.mul_(self.beta2).addcmul_(grad, grad, value=1 - self.beta2)
        m_hat = m / (1 - self.beta1 ** self.step)
        v_hat = v / (1 - self.beta2 ** self.step)
        return param - self.lr * m_hat / (v_hat.sqrt() + self.eps)


def _group(*shape):
    return [torch.randn(*shape), torch.randn(*shape), 0.1 * torch.randn(*shape), torch.rand(*shape)]


def get_input_groups():
    return [_group(64, 300), _group(7, 13), _group(1000)]


def get_inputs():
    return get_input_groups()[0]


def get_init_inputs():
    return [0.01, 0.9, 0.999, 1e-8, 3]
