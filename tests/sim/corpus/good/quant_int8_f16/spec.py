import numpy as np

from kernelwright.tools.sim.corpus import launch

DESCRIPTION = "fp16 -> int8 quantisation (Muls, Cast CAST_ROUND, saturating) and dequantisation (Cast CAST_NONE)"


def cases(rng):
    out = []
    for blocks, per_core, tile, scale in ((4, 1024, 256, 32.0), (3, 64, 64, 10.0)):
        n = blocks * per_core
        x = rng.uniform(-5, 5, n).astype(np.float16)
        out.append(launch(blocks, ["x", "q", "d", n, tile, scale], {"x": x},
                          {"q": ((n,), "int8"), "d": ((n,), "float16")}, label=f"scale={scale}"))
    return out


def reference(case):
    scale = float(case.args[5].value)
    s = (case.inputs["x"] * np.float16(scale)).astype(np.float64)
    q = np.clip(np.sign(s) * np.floor(np.abs(s) + 0.5), -128, 127).astype(np.int8)
    return {"q": q, "d": (q.astype(np.float16) * np.float16(1.0 / scale)).astype(np.float16)}
