"""nn.Linear followed by GELU (the MIX epilogue case)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, inp: int, out: int):
        super().__init__()
        self.fc = nn.Linear(inp, out)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.gelu(self.fc(x))


def get_input_groups():
    return [[torch.randn(25, 96)], [torch.randn(130, 96)]]


def get_inputs():
    return get_input_groups()[0]


def get_init_inputs():
    return [96, 200]
