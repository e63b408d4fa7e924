# expect: check_nn_layers
# The layer holds the weight and also computes: its forward runs before the kernel ever sees the data.
import torch.nn as nn
import custom_ops_lib


class ModelNew(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3)

    def forward(self, x):
        y = self.conv.forward(x)
        return custom_ops_lib.relu_custom(y)
