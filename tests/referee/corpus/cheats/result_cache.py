# expect: check_result_cache
# Remembers the first answer and returns it forever after (a warning: state is sometimes legitimate).
import torch
import custom_ops_lib


class ModelNew(torch.nn.Module):
    def forward(self, x):
        if getattr(self, "cached", None) is None:
            self.cached = custom_ops_lib.gelu_custom(x)
        return self.cached
