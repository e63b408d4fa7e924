# expect: clean
# The kernel function looked up by name on the extension, then called (MultiKernelBench-style answers).
import torch
import custom_ops_lib

_FN = "elu_custom"


class ModelNew(torch.nn.Module):
    def __init__(self, *init_inputs):
        super().__init__()

    def forward(self, *inputs):
        fn = getattr(custom_ops_lib, _FN)
        return fn(*inputs)
