"""A reference that never varies cannot tell a kernel that computes it from one that writes a constant.

Each trial records, per reference output, its single value when all its elements are equal (all NaN
counts as one value). An output whose value is that same constant in every trial (and that has more
than one element observed) is unjudgeable: a verdict whose outputs all are is not a pass but an error
("unjudgeable", exit 2: nothing could be judged), and one with some such outputs says which.
"""
from __future__ import annotations

import numpy as np

from kernelwright.tools.referee.compare import as_f64
from kernelwright.tools.referee.verdict import Verdict


def constant(a: np.ndarray) -> str | None:
    """The one value every element holds ("nan" for all NaN), or None when the elements differ."""
    a = np.asarray(a)
    if a.size == 0 or a.dtype.kind in "cOSUV":
        return None
    if a.dtype.kind in "iub":                     # exact: large integers need not survive float64
        return repr(a.reshape(-1)[0].item()) if a.min() == a.max() else None
    flat = as_f64(a).reshape(-1)
    nan = np.isnan(flat)
    if nan.all():
        return "nan"
    if nan.any() or flat.min() != flat.max():
        return None
    return repr(float(flat[0]))


def unjudged(v: Verdict) -> dict[int, str]:
    """Reference output index -> its constant value, for the outputs no passing trial could judge."""
    runs = [r for r in v.runs if r.status == "pass" and r.reference_constants]
    found: dict[int, str] = {}
    for k in range(max((len(r.reference_constants) for r in runs), default=0)):
        values = [r.reference_constants[k] for r in runs if k < len(r.reference_constants)]
        elements = sum(r.reference_sizes[k] for r in runs if k < len(r.reference_sizes))
        if values and None not in values and len(set(values)) == 1 and elements >= 2:
            found[k] = values[0]  # type: ignore[assignment]
    return found


def apply(v: Verdict) -> None:
    """Turn a pass that judged nothing into an error, and name partly unjudged outputs."""
    if v.status != "pass":
        return
    found = unjudged(v)
    if not found:
        return
    outputs = max(len(r.reference_constants) for r in v.runs if r.reference_constants)
    what = "; ".join(f"output {k} is {value} in every trial" for k, value in found.items())
    compare = v.stage("compare")
    if len(found) < outputs:
        compare.findings.append(f"partly unjudgeable: {what}, so its comparison cannot tell a kernel that computes it "
                                "from one that writes that constant")
        return
    compare.status = "error"
    compare.findings.append(f"unjudgeable: {what}")
    v.status = "error"
    v.summary = (f"unjudgeable: the reference never varies ({what}); a kernel that writes that constant would "
                 "match it as well, so this task cannot judge a kernel (give it inputs that make its output vary)")
