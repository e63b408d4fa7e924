import numpy as np

from kernelwright.tools.toolchain import Case

DESCRIPTION = "msopgen RowSumCustom: TILING_KEY 1 = WholeReduceSum over a tile of short rows, 2 = ReduceSum per long row"
TOLERANCE = {"float32": (1e-5, 1e-4), "float16": (1e-2, 1e-2)}


def cases(rng):
    out = []
    for shape, dtype in (((300, 50), np.float32), ((8, 6, 100), np.float16), ((77, 1500), np.float32), ((5, 3), np.float32)):
        out.append(Case(inputs={"x": rng.uniform(0, 1, shape).astype(dtype)}, label=f"{np.dtype(dtype).name}{list(shape)}"))
    return out


def reference(case):
    x = case.inputs["x"]
    return {"y": x.astype(np.float64).sum(axis=-1).astype(x.dtype)}
