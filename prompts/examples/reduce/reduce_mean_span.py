"""torch.mean over `span` consecutive axes from `dim` (keepdim): spatial means of NCHW / NCL inputs."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim: int, span: int, keepdim: bool):
        super().__init__()
        self.dims = tuple(range(dim, dim + span))
        self.keepdim = keepdim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.mean(x, dim=self.dims, keepdim=self.keepdim)


def get_input_groups():
    return [[torch.randn(4, 32, 7, 9)], [torch.randn(3, 5, 40, 1)], [torch.randn(2, 70, 3, 33)]]


def get_inputs():
    return get_input_groups()[0]


def get_init_inputs():
    return [2, 2, True]
