"""index_copy along axis 0: rows of src replace the rows the indices name."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, indices, src):
        return x.index_copy(0, indices, src)


def get_inputs():
    return [torch.randn(9, 33), torch.tensor([4, 0, 7]), torch.randn(3, 33)]


def get_init_inputs():
    return []
