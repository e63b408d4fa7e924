# expect: clean
# Allocation, views and dtype moves around a real kernel call are fine; so is a comment saying torch.relu(x).
import torch
import custom_ops_lib


class ModelNew(torch.nn.Module):
    def __init__(self, alpha: float):
        super().__init__()
        self.alpha = alpha

    def forward(self, x, y):
        x = x.contiguous().view(x.shape[0], -1)
        return custom_ops_lib.add_custom(x, y.to(x.dtype), self.alpha).reshape(y.shape)
