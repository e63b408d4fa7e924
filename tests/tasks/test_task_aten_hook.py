"""CANN's own operators a binding launches (aclnnConvolution, aclnnGroupNorm, ...) are computed in the worker
by PyTorch's equivalents, written into the binding's output tensors in their aclnn argument order."""
import torch

from kernelwright.tools.tasks import aten_hook


def test_builtin_convolution_writes_the_bindings_output():
    x, w, b = torch.randn(2, 3, 8, 8), torch.randn(4, 3, 3, 3), torch.randn(4)
    y = torch.full((2, 4, 3, 3), float("nan"))
    aten_hook.exec_npu_cmd("aclnnConvolution", "x, w, b, s, p, d, t, op, g, y, m",
                           [x, w, b, [2, 2], [0, 0], [1, 1], False, [0, 0], 1, y, 0])
    torch.testing.assert_close(y, torch.nn.functional.conv2d(x, w, b, stride=2))


def test_builtin_group_norm_fills_output_mean_and_rstd():
    x, g, b = torch.randn(2, 4, 5, 5), torch.randn(4), torch.randn(4)
    out, mean, rstd = torch.empty_like(x), torch.empty(2, 2), torch.empty(2, 2)
    aten_hook.exec_npu_cmd("aclnnGroupNorm", "", [x, g, b, 2, 4, 25, 2, 1e-5, out, mean, rstd])
    torch.testing.assert_close(out, torch.nn.functional.group_norm(x, 2, g, b, 1e-5))
    torch.testing.assert_close(mean, x.reshape(2, 2, -1).mean(-1))


def test_builtin_batch_norm_in_training_returns_the_batch_statistics():
    x, w, b = torch.randn(4, 3, 2, 2), torch.randn(3), torch.randn(3)
    rm, rv = torch.zeros(3), torch.ones(3)
    out, save_mean, save_invstd = torch.empty_like(x), torch.empty(3), torch.empty(3)
    aten_hook.exec_npu_cmd("aclnnBatchNorm", "", [x, w, b, rm, rv, True, 0.1, 1e-5, out, save_mean, save_invstd])
    torch.testing.assert_close(out, torch.nn.functional.batch_norm(x, torch.zeros(3), torch.ones(3), w, b, True, 0.1, 1e-5))
    torch.testing.assert_close(save_mean, x.mean((0, 2, 3)))
    torch.testing.assert_close(rm, 0.1 * x.mean((0, 2, 3)))       # running stats updated, as CANN's kernel does


def test_builtin_layer_norm_keeps_the_normalized_dims_in_mean_and_rstd():
    # NPUKernelBench's LayerNormV4 binding launches aclnnLayerNorm itself
    x, w = torch.randn(3, 4, 6), torch.randn(4, 6)
    out, mean, rstd = torch.empty_like(x), torch.empty(3, 1, 1), torch.empty(3, 1, 1)
    aten_hook.exec_npu_cmd("aclnnLayerNorm", "", [x, [4, 6], w, None, 1e-5, out, mean, rstd])
    torch.testing.assert_close(out, torch.nn.functional.layer_norm(x, [4, 6], w, None, 1e-5))
    torch.testing.assert_close(mean, x.mean((1, 2), keepdim=True))
    torch.testing.assert_close(rstd, torch.rsqrt(x.var((1, 2), unbiased=False, keepdim=True) + 1e-5))
