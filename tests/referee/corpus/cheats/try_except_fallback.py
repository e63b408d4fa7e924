# expect: check_try_fallback, check_torch_compute
# Falls back to PyTorch whenever the kernel raises.
import torch
import torch.nn.functional as F
import custom_ops_lib


class ModelNew(torch.nn.Module):
    def forward(self, x):
        try:
            return custom_ops_lib.softmax_custom(x)
        except RuntimeError:
            return F.softmax(x, dim=-1)
