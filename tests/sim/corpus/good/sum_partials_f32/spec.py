import numpy as np

from kernelwright.tools.sim.corpus import launch

DESCRIPTION = "whole-tensor fp32 sum: per-core accumulator vector, one ReduceSum, 4-byte DataCopyPad of each partial"
TOLERANCE = {"float32": (1e-5, 1e-3)}


def cases(rng):
    out = []
    for n, blocks, tile in ((10000, 8, 512), (333, 3, 64), (4096, 1, 1024)):
        x = rng.uniform(-1, 1, n).astype(np.float32)
        out.append(launch(blocks, ["x", "partials", n, tile], {"x": x}, {"partials": ((blocks,), "float32")}))
    return out


def reference(case):
    x, blocks = case.inputs["x"].astype(np.float64), case.block_dim
    units = -(-x.size // 8)
    per, extra = divmod(units, blocks)
    sums, start = [], 0
    for b in range(blocks):
        mine = (per + (b < extra)) * 8
        sums.append(x[start:start + mine].sum())
        start += mine
    return {"partials": np.array(sums, dtype=np.float32)}
