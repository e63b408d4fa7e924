from kernelwright.tools.sim.corpus import launch

DESCRIPTION = "fp32 add, uneven multi-core split in 32-byte units, DataCopyPad tails, double buffering"


def cases(rng):
    out = []
    for n, blocks, tile in ((1000, 8, 256), (4099, 3, 512), (24, 4, 64)):
        x = rng.standard_normal(n).astype("float32")
        y = rng.standard_normal(n).astype("float32")
        out.append(launch(blocks, ["x", "y", "z", n, tile], {"x": x, "y": y}, {"z": ((n,), "float32")}))
    return out


def reference(case):
    return {"z": case.inputs["x"] + case.inputs["y"]}
