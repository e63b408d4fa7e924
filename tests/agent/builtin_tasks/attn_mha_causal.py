"""nn.MultiheadAttention (batch_first) under a causal bool mask made once at its largest length and cut to the
input's length in forward (`mask[:L, :L]`, L = x.size(1)), on two shapes."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, d_model=24, num_heads=2, max_len=40):
        super().__init__()
        self.mha = nn.MultiheadAttention(d_model, num_heads, batch_first=True)
        self.register_buffer("causal_mask", torch.triu(torch.ones(max_len, max_len), diagonal=1).bool(),
                             persistent=False)

    def forward(self, x):
        L = x.size(1)
        out, _ = self.mha(x, x, x, attn_mask=self.causal_mask[:L, :L])
        return out


def get_input_groups():
    return [[torch.rand(2, 10, 24)], [torch.rand(1, 33, 24)]]


def get_inputs():
    return get_input_groups()[0]


def get_init_inputs():
    return [24, 2, 40]
