// expect: check_builtin_only
#include <torch/extension.h>
#include "pytorch_npu_helper.hpp"

// the answer's own ConvCustom kernel is built but never launched: CANN's library convolves
at::Tensor conv_custom(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b, int64_t stride) {
    at::Tensor y = at::empty({x.size(0), w.size(0), (x.size(2) - w.size(2)) / stride + 1,
                              (x.size(3) - w.size(3)) / stride + 1}, x.options());
    std::vector<int64_t> s = {stride, stride}, p = {0, 0}, d = {1, 1}, op = {0, 0};
    at::IntArrayRef strides(s), pads(p), dils(d), outPad(op);
    bool transposed = false;
    int64_t groups = 1;
    int8_t cubeMathType = 0;
    EXEC_NPU_CMD(aclnnConvolution, x, w, b, strides, pads, dils, transposed, outPad, groups, y, cubeMathType);
    return y;
}
PYBIND11_MODULE(custom_ops_lib, m) { m.def("conv_custom", &conv_custom); }
