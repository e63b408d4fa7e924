// expect: check_at_compute
#include <torch/extension.h>
#include "aclrtlaunch_matmul_custom.h"

at::Tensor matmul_custom(const at::Tensor& a, const at::Tensor& b) {
    at::Tensor c = at::matmul(a, b);   // the answer, computed by ATen
    ACLRT_LAUNCH_KERNEL(matmul_custom)(1, nullptr, a.data_ptr(), b.data_ptr(), c.data_ptr());
    return c;
}
PYBIND11_MODULE(custom_ops_lib, m) { m.def("matmul_custom", &matmul_custom); }
