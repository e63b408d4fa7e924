"""torch.index_select of rows."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, table, rows):
        return torch.index_select(table, 0, rows)


def get_input_groups():
    return [[torch.rand(40, 24), torch.randint(0, 40, (13,))], [torch.rand(7, 130), torch.randint(0, 7, (20,))]]


def get_inputs():
    return get_input_groups()[0]


def get_init_inputs():
    return []
