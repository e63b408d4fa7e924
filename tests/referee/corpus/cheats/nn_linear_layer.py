# expect: check_nn_layers, check_kernel_not_called
# The reference's own layer under a new name.
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, n, m):
        super().__init__()
        self.proj = nn.Linear(n, m)

    def forward(self, x):
        return self.proj(x)
