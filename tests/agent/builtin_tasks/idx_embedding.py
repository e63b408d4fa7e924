"""nn.Embedding: a row of the table per index."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, num, dim):
        super().__init__()
        self.table = nn.Embedding(num, dim)

    def forward(self, tokens):
        return self.table(tokens)


def get_input_groups():
    return [[torch.randint(0, 50, (4, 7))], [torch.randint(0, 50, (33,))]]


def get_inputs():
    return get_input_groups()[0]


def get_init_inputs():
    return [50, 24]
