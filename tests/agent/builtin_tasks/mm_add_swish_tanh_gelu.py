"""nn.Linear + a bias vector, then swish, tanh, GELU and hardtanh: advanced APIs whose temporary shares the UB."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, inp, out):
        super().__init__()
        self.fc = nn.Linear(inp, out)
        self.add_value = nn.Parameter(torch.randn(out))

    def forward(self, x):
        x = self.fc(x) + self.add_value
        x = torch.sigmoid(x) * x
        x = torch.tanh(x)
        x = F.gelu(x)
        return F.hardtanh(x, min_val=-1, max_val=1)


def get_input_groups():
    return [[torch.randn(70, 48)], [torch.randn(130, 48)]]


def get_inputs():
    return get_input_groups()[0]


def get_init_inputs():
    return [48, 300]
