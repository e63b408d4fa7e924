# expect: check_torch_compute, check_kernel_not_called
# A function looked up by name on torch is torch, not the kernel.
import torch


class ModelNew(torch.nn.Module):
    def forward(self, x):
        fn = getattr(torch, "relu")
        return fn(x).sum(dim=0)
