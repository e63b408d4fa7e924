# expect: clean
# MultiKernelBench's own pattern: nn.Linear / nn.GroupNorm hold the parameters (same init as Model under
# the same seed) and only their .weight / .bias reach the custom op.
import torch
import torch.nn as nn
import custom_ops_lib


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, groups):
        super().__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.norm = nn.GroupNorm(groups, out_features)

    def forward(self, x):
        w = self.gemm.weight.t().contiguous()
        return custom_ops_lib.gemm_group_norm_custom(x, w, self.gemm.bias, self.norm.weight, self.norm.bias)
