import numpy as np

from kernelwright.tools.toolchain import Case

DESCRIPTION = "msopgen AvgPool2dCustom on NHWC: ListInt attrs ksize/strides, array tiling fields, fp32/fp16"
TOLERANCE = {"float32": (1e-5, 1e-5)}


def cases(rng):
    out = []
    for shape, dtype, k, s in (((2, 9, 9, 16), np.float32, [3, 3], [2, 2]), ((1, 8, 12, 32), np.float16, [2, 2], [2, 2]),
                               ((3, 5, 6, 8), np.float32, [2, 3], [1, 3])):
        x = rng.standard_normal(shape).astype(dtype)
        out.append(Case(inputs={"x": x}, attrs={"ksize": k, "strides": s}, label=f"{np.dtype(dtype).name}{list(shape)} k={k} s={s}"))
    return out


def reference(case):
    x = case.inputs["x"]
    (kh, kw), (sh, sw) = case.attrs["ksize"], case.attrs["strides"]
    oh, ow = (x.shape[1] - kh) // sh + 1, (x.shape[2] - kw) // sw + 1
    y = np.zeros((x.shape[0], oh, ow, x.shape[3]), dtype=x.dtype)
    for i in range(oh):
        for j in range(ow):
            taps = [x[:, i * sh + a, j * sw + b] for a in range(kh) for b in range(kw)]
            acc = taps[0] + taps[1]
            for t in taps[2:]:
                acc = acc + t               # same order and rounding as the kernel
            y[:, i, j] = acc * x.dtype.type(np.float32(1.0 / (kh * kw)))
    return {"y": y}
