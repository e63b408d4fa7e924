"""relu(ConvTranspose2d(...)) with stride (2, 3), padding, dilation, groups 2 and bias, on two image sizes:
a transposed convolution through the upsampled-input im2col, with an elementwise epilogue."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.ConvTranspose2d(4, 6, (3, 2), stride=(2, 3), padding=(1, 0), dilation=(2, 1), groups=2)

    def forward(self, x):
        return torch.relu(self.conv(x))


def get_input_groups():
    return [[torch.randn(2, 4, 5, 7)], [torch.randn(1, 4, 3, 9)]]


def get_inputs():
    return get_input_groups()[0]


def get_init_inputs():
    return []
