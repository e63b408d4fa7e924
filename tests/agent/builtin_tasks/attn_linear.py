"""Linear attention phi(Q) (phi(K)^T V) with phi = elu + 1, written with einsum, on two shapes (more keys than
queries in one)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def forward(self, Q, K, V):
        kv = torch.einsum("bkd,bkv->bdv", F.elu(K) + 1.0, V)
        return torch.einsum("bqd,bdv->bqv", F.elu(Q) + 1.0, kv)


def get_input_groups():
    return [[torch.randn(2, 10, 24), torch.randn(2, 10, 24), torch.randn(2, 10, 40)],
            [torch.randn(1, 7, 16), torch.randn(1, 33, 16), torch.randn(1, 33, 9)]]


def get_inputs():
    return get_input_groups()[0]


def get_init_inputs():
    return []
