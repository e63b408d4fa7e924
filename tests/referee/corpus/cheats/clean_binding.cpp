// expect: clean
// Comments may say at::matmul(a, b) or x.add(y); strings too: "torch::relu(".
#include <torch/library.h>
#include "pytorch_npu_helper.hpp"

at::Tensor add_custom(const at::Tensor& x, const at::Tensor& y) {
    at::Tensor result = at::empty_like(x);
    EXEC_NPU_CMD(aclnnAddCustom, x.contiguous(), y, result);
    return result.view(x.sizes());
}
TORCH_LIBRARY_IMPL(myops, PrivateUse1, m) { m.impl("add_custom", &add_custom); }
