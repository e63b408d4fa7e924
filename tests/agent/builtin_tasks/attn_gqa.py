"""Grouped-query attention written out by hand (q/k/v/out Linear projections, repeat_interleave of the kv
heads, einsum, softmax), on two shapes; cross inputs (queries from one sequence, keys and values from another)."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, d_model=32, num_heads=4, num_kv_heads=2):
        super().__init__()
        self.num_heads, self.num_kv_heads = num_heads, num_kv_heads
        self.q_proj = nn.Linear(d_model, d_model)
        self.k_proj = nn.Linear(d_model, d_model * num_kv_heads // num_heads)
        self.v_proj = nn.Linear(d_model, d_model * num_kv_heads // num_heads)
        self.out_proj = nn.Linear(d_model, d_model)

    def forward(self, x, mem):
        B, L, D = x.shape
        H, G = self.num_heads, self.num_heads // self.num_kv_heads
        head_dim = D // H
        q = self.q_proj(x).view(B, L, H, head_dim)
        k = self.k_proj(mem).view(B, mem.shape[1], self.num_kv_heads, head_dim).repeat_interleave(G, dim=2)
        v = self.v_proj(mem).view(B, mem.shape[1], self.num_kv_heads, head_dim).repeat_interleave(G, dim=2)
        attn = F.softmax(torch.einsum("blhd,bmhd->bhlm", q, k) / math.sqrt(head_dim), dim=-1)
        return self.out_proj(torch.einsum("bhlm,bmhd->blhd", attn, v).reshape(B, L, D))


def get_input_groups():
    return [[torch.rand(2, 10, 32), torch.rand(2, 21, 32)], [torch.rand(1, 17, 32), torch.rand(1, 6, 32)]]


def get_inputs():
    return get_input_groups()[0]


def get_init_inputs():
    return [32, 4, 2]
