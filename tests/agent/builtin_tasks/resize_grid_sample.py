"""F.grid_sample (bilinear, zeros padding) with a grid input that reaches outside the image, on two shapes
(one wider than it is tall, the output a different size than the input)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def forward(self, x, grid):
        return F.grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=False)


def get_input_groups():
    return [[torch.rand(2, 3, 9, 13), torch.rand(2, 7, 11, 2) * 2.4 - 1.2],
            [torch.rand(1, 2, 16, 5), torch.rand(1, 12, 6, 2) * 2.2 - 1.1]]


def get_inputs():
    return get_input_groups()[0]


def get_init_inputs():
    return []
