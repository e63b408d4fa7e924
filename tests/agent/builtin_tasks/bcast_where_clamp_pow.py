"""where with a broadcast bool condition, clamp between tensor bounds, a tensor exponent."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, cond, x, lo, e):
        y = torch.clamp(x, min=lo, max=lo + 1.5)
        return torch.where(cond, y ** e, x)


def get_inputs():
    return [torch.rand(1, 6, 1) > 0.5, torch.rand(4, 6, 33) * 3 + 0.1, torch.rand(33) * 0.5, torch.rand(6, 1) + 0.5]


def get_init_inputs():
    return []
