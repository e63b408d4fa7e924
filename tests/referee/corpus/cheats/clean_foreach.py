# expect: clean
# A loop over a list of tensors that hands each one to the kernel is not an element loop.
import torch
import kernel_gen_ops


class ModelNew(torch.nn.Module):
    def forward(self, tensors, scalar):
        return [kernel_gen_ops.foreach_mul_scalar(t, scalar) for t in tensors]
