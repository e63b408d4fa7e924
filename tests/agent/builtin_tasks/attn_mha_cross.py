"""nn.MultiheadAttention (batch_first) as cross attention: queries from one sequence, keys and values from
another, on two shapes."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, d_model=48, num_heads=3):
        super().__init__()
        self.mha = nn.MultiheadAttention(d_model, num_heads, batch_first=True)

    def forward(self, q, kv):
        out, _ = self.mha(q, kv, kv)
        return out


def get_input_groups():
    return [[torch.rand(2, 10, 48), torch.rand(2, 30, 48)], [torch.rand(1, 17, 48), torch.rand(1, 5, 48)]]


def get_inputs():
    return get_input_groups()[0]


def get_init_inputs():
    return [48, 3]
