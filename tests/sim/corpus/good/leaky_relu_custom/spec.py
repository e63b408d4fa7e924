import numpy as np

from kernelwright.tools.toolchain import Case

DESCRIPTION = "msopgen LeakyReluCustom: float attr into the tiling, fp16/fp32, last core shorter, DataCopyPad (DataCopyParams form)"


def cases(rng):
    out = []
    for shape, dtype, slope in (((33, 1001), "float16", 0.2), ((5000,), "float32", 0.01), ((3, 7), "float32", None)):
        x = rng.standard_normal(shape).astype(dtype)
        attrs = {} if slope is None else {"negative_slope": slope}
        out.append(Case(inputs={"x": x}, attrs=attrs, label=f"{dtype}{list(shape)} slope={slope}"))
    return out


def reference(case):
    x = case.inputs["x"]
    slope = x.dtype.type(case.attrs.get("negative_slope", 0.01))
    return {"y": np.where(x >= 0, x, x * slope).astype(x.dtype)}
