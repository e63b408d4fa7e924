import numpy as np

from kernelwright.tools.toolchain import Case

DESCRIPTION = "msopgen GlobalSumCustom: per-core partials in the user workspace (GetUserWorkspace), SyncAll, core 0 reduces"
TOLERANCE = {"float32": (1e-5, 1e-3), "float16": (2e-3, 1e-2)}


def cases(rng):
    out = []
    for n, dtype in ((100_000, np.float32), (3000, np.float16), (50, np.float32)):
        out.append(Case(inputs={"x": rng.uniform(-1, 1, n).astype(dtype)}, label=f"{np.dtype(dtype).name}[{n}]"))
    return out


def reference(case):
    x = case.inputs["x"]
    return {"y": np.array([x.astype(np.float64).sum()]).astype(x.dtype)}
