"""Outputs whose shape the kernel computes (`OpParamDef::OutputShapeDependOnCompute`, e.g. NonZero or
MaskedSelect): CANN passes one more GM argument after the outputs, and the kernel writes there, per such
output in OpDef order, 9 uint64 values: the dim count (its bit 31 set when the dims are 64-bit), then up to 8
dims. The framework then gives the output that shape; here the output array is cut to it.
(CANN Ascend C guide, "Kernel侧算子实现", 输出shape依赖计算的算子kernel实现.)"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from kernelwright.tools.toolchain import Diagnostic

SLOTS = 9   # per output: dim count + 8 dims
SHAPE_OUT = "shape_out"   # the argument's buffer name in the manifest


def size(outputs: int) -> int:
    return outputs * SLOTS * 8


def refresh(result, names: list[str], path: Path) -> None:
    """Give each named output the shape the kernel wrote; a record that is not a valid shape leaves the
    output as allocated (with a note)."""
    if not path.exists():
        return
    words = np.fromfile(path, dtype=np.uint64)
    for i, name in enumerate(names):
        out = result.outputs.get(name)
        rec = words[i * SLOTS:(i + 1) * SLOTS]
        if out is None or len(rec) < SLOTS:
            continue
        ndim = int(rec[0]) & 0x7FFFFFFF
        dims = [int(d) & (0xFFFFFFFFFFFFFFFF if int(rec[0]) & 0x80000000 else 0xFFFFFFFF) for d in rec[1:1 + ndim]]
        if ndim > 8 or int(np.prod(dims, dtype=np.int64)) > out.size:
            result.diagnostics.append(Diagnostic(
                stage="run", severity="warning", rule="shape_out.invalid", category="runtime_rule",
                message=f"output '{name}' is declared OutputShapeDependOnCompute, but the kernel wrote no valid shape "
                        f"for it to the shape-out argument (dim count {int(rec[0])}); it is compared as allocated, "
                        f"{tuple(out.shape)}",
                hint="write the output's dim count and dims (uint64 each) to the argument after the outputs"))
            continue
        result.outputs[name] = out.reshape(-1)[:int(np.prod(dims, dtype=np.int64))].reshape(dims)
