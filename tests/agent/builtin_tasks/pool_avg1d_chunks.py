"""nn.AvgPool1d(8, 1, 4) on rows of 3000: a unit is 16 rows x one chunk of columns; whole chunks inside the rows
gather straight from the loaded rows, the first (in the padding), the ragged last and a short last unit fold as before."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.AvgPool1d(kernel_size=8, stride=1, padding=4)

    def forward(self, x):
        return self.pool(x)


def get_inputs():
    return [torch.rand(2, 20, 3000)]


def get_init_inputs():
    return []
