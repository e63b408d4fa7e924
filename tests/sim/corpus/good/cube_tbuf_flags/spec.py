import numpy as np

from kernelwright.tools.sim.corpus import launch

DESCRIPTION = ("kernel launch: raw cube instructions (ND->NZ DataCopy, LoadData with the b16 transpose, Mmad, Fixpipe) "
               "on TBuf storage with explicit MTE2->MTE1->M->FIX flags; 32 rows of C per block")
TOLERANCE = {"float32": (1e-5, 1e-4)}


def cases(rng):
    out = []
    for blocks, n, k in ((2, 40, 24), (3, 64, 64)):
        a = rng.uniform(-1, 1, (32 * blocks, k)).astype(np.float16)
        b = rng.uniform(-1, 1, (k, n)).astype(np.float16)
        out.append(launch(blocks, ["a", "b", "c", n, k], {"a": a, "b": b}, {"c": ((32 * blocks, n), "float32")},
                          kernel="cube_tbuf_flags"))
    return out


def reference(case):
    return {"c": case.inputs["a"].astype(np.float32) @ case.inputs["b"].astype(np.float32)}
