import numpy as np

from kernelwright.tools.toolchain import Case

DESCRIPTION = "msopgen ScaleShiftCustom: float/bool attrs, fp16/fp32/int32, aligned body by DataCopy plus DataCopyPad tail"


def cases(rng):
    out = []
    for n, dtype, attrs in ((70_001, np.float16, {"scale": 0.5, "shift": -1.0, "relu": True}),
                            (4099, np.float32, {"scale": 3.0, "shift": 0.25}),
                            (1234, np.int32, {"scale": 3.7, "shift": -5.0, "relu": True})):
        x = rng.integers(-100, 100, n).astype(dtype) if dtype == np.int32 else rng.standard_normal(n).astype(dtype)
        out.append(Case(inputs={"x": x}, attrs=attrs, label=f"{np.dtype(dtype).name}[{n}]"))
    return out


def reference(case):
    x = case.inputs["x"]
    t = x.dtype.type
    scale, shift = t(np.float32(case.attrs["scale"])), t(np.float32(case.attrs.get("shift", 0.0)))
    y = (x * scale).astype(x.dtype) + shift
    return {"y": (np.maximum(y, 0) if case.attrs.get("relu") else y).astype(x.dtype)}
