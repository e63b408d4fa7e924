"""F.scaled_dot_product_attention with more keys (300) than one softmax chunk holds, on two shapes."""
import torch
import torch.nn.functional as F


class Model(torch.nn.Module):
    def forward(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v)


def get_input_groups():
    return [[torch.randn(2, 3, 20, 24), torch.randn(2, 3, 300, 24), torch.randn(2, 3, 300, 40)],
            [torch.randn(1, 2, 9, 16), torch.randn(1, 2, 33, 16), torch.randn(1, 2, 33, 8)]]


def get_inputs():
    return get_input_groups()[0]


def get_init_inputs():
    return []
