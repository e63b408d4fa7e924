# expect: check_kernel_not_called
# Imports the extension, never calls it: returns a copy of the input.
import torch
import custom_ops_lib  # noqa: F401


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return x.clone()
