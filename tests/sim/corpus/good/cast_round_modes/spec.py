import numpy as np

from kernelwright.tools.sim.corpus import launch

DESCRIPTION = "Cast fp32 -> int32 with FLOOR/CEIL/ROUND/TRUNC/RINT and fp32 -> fp16 with CAST_ODD"


def _inputs(rng, n):
    halves = np.arange(n // 4, dtype=np.float32) - n // 8 + 0.5          # exact .5 ties for ROUND vs RINT
    rest = rng.uniform(-1000, 1000, n - halves.size).astype(np.float32)
    return rng.permutation(np.concatenate([halves, rest])).astype(np.float32)


def cases(rng):
    out = []
    for n, blocks, tile in ((1024, 4, 128), (96, 1, 32)):
        x = _inputs(rng, n)
        out.append(launch(blocks, ["x", "ints", "odd", n, tile], {"x": x},
                          {"ints": ((5, n), "int32"), "odd": ((n,), "float16")}))
    return out


def _round_to_odd_f16(x):
    near = x.astype(np.float16)
    exact = near.astype(np.float32) == x
    below = np.where(near.astype(np.float32) < x, near, np.nextafter(near, np.float16(-np.inf)))
    above = np.where(near.astype(np.float32) > x, near, np.nextafter(near, np.float16(np.inf)))
    odd_below = (below.view(np.uint16) & 1).astype(bool)
    return np.where(exact, near, np.where(odd_below, below, above)).astype(np.float16)


def reference(case):
    x = case.inputs["x"].astype(np.float64)
    away = np.sign(x) * np.floor(np.abs(x) + 0.5)
    ints = np.stack([np.floor(x), np.ceil(x), away, np.trunc(x), np.rint(x)]).astype(np.int32)
    return {"ints": ints, "odd": _round_to_odd_f16(case.inputs["x"])}
