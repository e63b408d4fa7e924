import numpy as np

from kernelwright.tools.toolchain import Case

DESCRIPTION = "msopgen AddCustom: fp16/fp32/int32 OpDef, TilingFunc splits 32-byte units over min(cores, units) blocks"


def cases(rng):
    out = []
    for n, dtype in ((100_003, "float16"), (777, "float32"), (5000, "int32"), (8, "float32")):
        if dtype == "int32":
            x, y = (rng.integers(-10**6, 10**6, n).astype(np.int32) for _ in range(2))
        else:
            x, y = (rng.standard_normal(n).astype(dtype) for _ in range(2))
        out.append(Case(inputs={"x": x, "y": y}, label=f"{dtype}[{n}]"))
    return out


def reference(case):
    return {"z": case.inputs["x"] + case.inputs["y"]}
