"""What a verdict says beyond pass/fail, for the model and the user: the measure stage's work counters
(and the speed estimate when there is one), patterns that waste the hardware (element-at-a-time vector
work, a matrix product on the vector unit), and the input lengths the shrunk cases never ran (a reduction
verified only at a shorter length: matmul K, a norm's row)."""
from __future__ import annotations

from typing import Any

FULL_FP32_INSTRUCTION = 64       # fp32 elements one full vector instruction (256 bytes) covers
SHORT_VECTOR = 8                 # fewer elements per instruction on average: element-at-a-time work
CUBE_FAMILIES = ("matmul", "convolution", "attention")


def _measure(v: Any) -> Any:
    return next((s for s in v.stages if s.name == "measure"), None)


def cube_instructions(v: Any) -> int | None:
    """Cube instructions of the first measured case (None when the verdict measured nothing)."""
    measure = _measure(v)
    per_case = (measure.metrics or {}).get("per_case") if measure is not None else None
    if not per_case:
        return None
    return int(next(iter(per_case.values())).get("cube_instructions", 0))


def unhonoured(v: Any, plan: Any) -> str | None:
    """The plan's requirement a passing kernel does not honour, read from the work counters."""
    if plan is None or not plan.cube:
        return None
    ci = cube_instructions(v)
    if ci is None or ci > 0:
        return None
    route = "the direct AscendC route" if plan.route == "ascendc" else "the DSL route"
    how = "Mmad or the Matmul API, kernel type AIC_ONLY or MIX" if plan.route == "ascendc" else "A.cube + A.matmul"
    return (f"requirement not honoured: the plan says the matrix products run on the cube unit, and the kernel "
            f"({route}) ran 0 cube instructions (work counters); put them on the cube ({how}), or revise the plan "
            "(fault 'plan') saying why the cube cannot be used")


def work_notes(v: Any, family: str | None) -> list[str]:
    """The first case's work counters, and what they show about efficiency."""
    measure = _measure(v)
    per_case = (measure.metrics or {}).get("per_case") if measure is not None else None
    if not per_case:
        return []
    label, c = next(iter(per_case.items()))
    vi, ve, ci = c.get("vector_instructions", 0), c.get("vector_elements", 0), c.get("cube_instructions", 0)
    moved = sum((c.get("copy_bytes") or {}).values())
    notes = [f"work counters ({label}): {c.get('block_dim')} blocks, {vi} vector instructions over {ve} elements, "
             f"{ci} cube instructions ({c.get('cube_macs', 0)} MACs), {moved} bytes copied GM<->UB"]
    if (measure.metrics or {}).get("speed"):
        notes.append(f"speed: {measure.summary.rpartition('(work counters; no timing on sim); ')[2]}")
    if vi >= 1000 and ve / vi < SHORT_VECTOR:
        notes.append(f"efficiency: {ve / vi:.1f} elements per vector instruction on average (one full fp32 instruction "
                     f"covers {FULL_FP32_INSTRUCTION}): the kernel works element by element or in very short vectors; "
                     "give each vector call a whole tile or row")
    if family in CUBE_FAMILIES and ci == 0 and vi > 0:
        notes.append(f"efficiency: the {family} ran on the vector unit (0 cube instructions); a matrix product "
                     "belongs on the cube unit (A.cube + A.matmul)")
    return notes


def unrun_lengths(v: Any) -> list[str]:
    """Input dimensions whose real length no run used (the case was shrunk): what the verdict never covered."""
    real: dict[tuple[str, int, int], int] = {}
    ran: dict[tuple[str, int, int], set[int]] = {}
    for run in v.runs:
        if run.status not in ("pass", "fail") or not run.shrunk:
            continue
        for i, (orig, got) in enumerate(zip(run.original_shapes, run.run_shapes)):
            for d, (o, g) in enumerate(zip(orig, got)):
                real[(run.case, i, d)] = o
                ran.setdefault((run.case, i, d), set()).add(g)
    full = {key for key, lengths in ran.items() if real[key] in lengths}
    covered = {key[1:] for key in full}            # another case ran that input's dimension at its real length
    missed = [f"input {i} dim {d} {real[(case, i, d)]} (ran {', '.join(map(str, sorted(lengths)))})"
              for (case, i, d), lengths in sorted(ran.items()) if (i, d) not in covered]
    if not missed:
        return []
    return ["not covered: the cases were shrunk and these lengths never ran at their real size: "
            f"{'; '.join(missed[:8])}{' ...' if len(missed) > 8 else ''} (a reduction over one of them, e.g. "
            "matmul K or a norm's row, is verified only at the shorter length)"]
