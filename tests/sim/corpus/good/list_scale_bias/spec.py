import numpy as np

from kernelwright.tools.toolchain import Case

DESCRIPTION = ("msopgen ListScaleBias: a DYNAMIC (tensor-list) input and output read with ListTensorDesc/TensorDesc, "
               "a REQUIRED input after the list (instance index = list length), ragged tensors of mixed rank")

SHAPES = ([(37,), (4, 33), (2, 3, 5)], [(4096,)], [(1,), (8, 8), (3,), (1000,), (2, 2, 2, 2)])


def cases(rng):
    out = []
    for shapes, dtype, scale in zip(SHAPES, (np.float32, np.float16, np.float32), (2.0, -0.5, 0.25)):
        inputs = {f"x[{k}]": rng.standard_normal(s).astype(dtype) for k, s in enumerate(shapes)}
        inputs["bias"] = np.array([0.75], dtype=dtype)
        out.append(Case(inputs=inputs, attrs={"scale": scale}, label=f"{len(shapes)} x {np.dtype(dtype).name}"))
    return out


def reference(case):
    bias = case.inputs["bias"]
    t = bias.dtype.type
    out = {}
    for key, x in case.inputs.items():
        if key.startswith("x["):
            out["y" + key[1:]] = ((x * t(case.attrs["scale"])).astype(x.dtype) + bias[0]).astype(x.dtype)
    return out
