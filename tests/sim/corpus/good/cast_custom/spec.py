import numpy as np
from ml_dtypes import bfloat16

from kernelwright.tools.toolchain import Case

DESCRIPTION = "msopgen CastCustom: per-column dtype pairs (fp16->fp32, fp32->fp16, bf16->fp32), RoundMode from an int attr"
TOLERANCE = {"float16": (0.0, 0.0), "float32": (0.0, 0.0)}
OUT = {np.dtype(np.float16): np.float32, np.dtype(np.float32): np.float16, np.dtype(bfloat16): np.float32}


def cases(rng):
    out = []
    for n, dtype, mode in ((10_000, np.float32, 3), (999, np.float32, 2), (5000, np.float16, None), (33, bfloat16, None),
                           (64, np.float32, 1)):
        x = rng.uniform(-100, 100, n).astype(dtype)
        out.append(Case(inputs={"x": x}, attrs={} if mode is None else {"round_mode": mode},
                        label=f"{np.dtype(dtype).name}[{n}] mode={mode}"))
    return out


def _round_f16(x, mode):
    near = x.astype(np.float16)
    if mode == 1:                                # CAST_RINT
        return near
    lo = np.where(near.astype(np.float32) <= x, near, np.nextafter(near, np.float16(-np.inf)))
    hi = np.where(near.astype(np.float32) >= x, near, np.nextafter(near, np.float16(np.inf)))
    return (lo if mode == 2 else hi).astype(np.float16)   # 2 = CAST_FLOOR, 3 = CAST_CEIL


def reference(case):
    x = case.inputs["x"]
    if x.dtype == np.float32:
        return {"y": _round_f16(x, case.attrs.get("round_mode", 1))}
    return {"y": x.astype(np.float32)}
