"""fp16 (48 x 8192) @ (8192 x 40): a long reduction in half precision (fp32 accumulation needed).

category: matmul
level: 2
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.matmul(a, b)


def get_inputs():
    return [(torch.randn(48, 8192) * 0.1).half(), (torch.randn(8192, 40) * 0.1).half()]


def get_init_inputs():
    return []
