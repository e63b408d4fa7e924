"""F.grid_sample(x, F.affine_grid(theta, x.size())) with align_corners=True: a rotation and a shift per image,
on two shapes."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def forward(self, x, theta):
        grid = F.affine_grid(theta, x.size(), align_corners=True)
        return F.grid_sample(x, grid, mode="bilinear", align_corners=True)


def _theta(n):
    a = torch.arange(n, dtype=torch.float32) * 0.7 + 0.3
    return torch.stack([torch.stack([a.cos(), -a.sin(), a * 0.1], 1), torch.stack([a.sin(), a.cos(), -a * 0.2], 1)], 1)


def get_input_groups():
    return [[torch.rand(2, 3, 12, 10), _theta(2)], [torch.rand(3, 1, 7, 17), _theta(3) * 1.3]]


def get_inputs():
    return get_input_groups()[0]


def get_init_inputs():
    return []
