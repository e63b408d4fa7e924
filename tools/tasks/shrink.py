"""Smaller cases for the CPU emulation that keep what makes a case hard.

NPU-sized shapes (billions of elements) would make the emulation crawl, so for the `sim` backend a
case's dims are mapped to smaller ones, by value, so that:
  * rank and dtype are unchanged, dims of size 1 stay 1, equal dims stay equal, different dims stay
    different (a non-square matmul stays non-square);
  * each shrunk dim keeps its power-of-two factor (up to a cap lowered until the case fits), so the
    divisions a tiling relies on (total / blocks / tiles) still come out whole; failing that,
  * each shrunk dim keeps its residue modulo the awkward sizes: the 256-byte vector repeat for a last
    dim (hence the 32-byte block), the 32-byte block for leading dims (so the element count keeps its
    residue), and the core count; so a tail that is not a multiple of 32 bytes, of the core count or
    of a repeat stays such a tail;
  * a last dim whose row did not fit in the Unified Buffer still does not (the kernel's inner
    tiling loop still runs).
  * a dim a convolution or pooling window slides over stays at least as long as the window needs;
  * a grouped convolution's channels stay a multiple of its group count (32 channels in 4 groups shrunk to 2
    made the reference fail, and the case ran at its own 12 GB size);
  * a group norm's channels shrink in whole groups of the task's width, and its group count (a value the
    task's constructor arguments hold) shrinks with them: 8192 channels in 512 groups become 512 in 32, not
    512 in 512 (groups of one channel, whose variance is rounding noise amplified ~300x by 1/sqrt(eps)).
Constraints are relaxed step by step (the power-of-two cap, then the UB rule, repeat -> block, the cores, the
leading dims' block) until the case fits
the element budget; when nothing fits, the plan says so and the referee falls back to the task's own
shape (if it fits a larger budget) or skips the case with the reason.

Given the output shapes, the dims that no output has (a matmul's K, a reduced axis, the indexed axis of a
gather) are kept at their full length when the other dims can absorb the budget: a reduction shrunk from
8192 to 72 terms hides accumulation-order and precision problems, and the cost of the real reduction
length. When keeping them does not fit, they shrink like the others.
"""
from __future__ import annotations

import math

from pydantic import BaseModel, Field

from kernelwright.tools.dtypes import BY_NAME

# First each dim keeps its power-of-two factor (capped, the cap lowered until the case fits): a tiling that
# splits the task's sizes into 8 blocks of 32 tiles relies on that, not on residues (sigmoid [4096, 393216]
# shrunk to [16, 49344] gave 3084-element tiles and an unaligned DataCopy; [256, 512] keeps the split whole).
# Then the residue levels, which keep tails that are not multiples of the block, repeat or core count.
POW2_CAPS = (1 << 30, 1 << 10, 1 << 8, 1 << 6)
# The last level keeps only the last dims' 32-byte residue: leading dims may take any value, else distinct dims that
# are all multiples of the block run out of small values (a [8, 48, 96, 96, 96] conv input: 8, 16, 24, 32 taken).
LEVELS = tuple(f"pow2<={c}+repeat+cores+ub" for c in POW2_CAPS) + tuple(f"pow2<={c}+repeat+cores" for c in POW2_CAPS) + (
    "repeat+cores+ub", "repeat+cores", "block+cores", "block", "last-block")


class Shape(BaseModel):
    dims: list[int]
    dtype: str


class ShrinkPlan(BaseModel):
    mapping: dict[int, int] = Field(default_factory=dict)   # original dim -> shrunk dim
    elements_before: int
    elements_after: int
    budget: int
    kept: str = ""                    # which residues the shrunk dims keep (one of LEVELS), "" when unshrunk
    reduction: list[int] = Field(default_factory=list)    # dims no output has, kept at full length
    fits: bool = True
    reason: str = ""

    def apply(self, dims: list[int]) -> list[int]:
        return [self.mapping.get(d, d) for d in dims]


def _numel(dims: list[int], mapping: dict[int, int]) -> int:
    return math.prod(mapping.get(d, d) for d in dims)


def _total(shapes: list[Shape], mapping: dict[int, int]) -> int:
    return sum(_numel(s.dims, mapping) for s in shapes)


def _constraints(shapes: list[Shape], d: int, level: str, cores: int, ub_bytes: int,
                 floors: dict[int, int], width: int = 1) -> tuple[int, int]:
    """(modulus, floor) a shrunk value of dim `d` must respect at this level. A last dim keeps its residue
    modulo the 256-byte repeat; a leading dim modulo the 32-byte block (so the element count keeps its
    residue too; not at the last level); both modulo the core count, except at the last two levels. The
    floor is 2, or what a sliding window over the dim needs (`floors`); the dim stays a multiple of `width`
    (a group norm's channels per group, a grouped convolution's group count)."""
    modulus, floor = width, max(2, floors.get(d, 0), width)
    for s in shapes:
        if d not in s.dims:
            continue
        size = BY_NAME[s.dtype].size if s.dtype in BY_NAME and BY_NAME[s.dtype].size else 4
        last = s.dims[-1] == d
        if level == "last-block" and not last:
            continue
        unit = max(1, (256 if level.startswith("repeat") and last else 32) // size)
        modulus = math.lcm(modulus, unit)
        if level.endswith("+ub") and last and d * size > ub_bytes:
            floor = max(floor, ub_bytes // size + 1)
    if level.startswith("pow2<="):
        cap = int(level.split("+")[0].removeprefix("pow2<="))
        modulus = math.lcm(modulus, min(d & -d, cap))      # d & -d: d's power-of-two factor
    if level not in ("block", "last-block"):
        modulus = math.lcm(modulus, cores)
    return modulus, floor


def _smallest(d: int, modulus: int, floor: int, taken: set[int]) -> int | None:
    v = d % modulus
    while v < floor or v in taken:
        v += modulus
    return v if v < d else None


def reduction_dims(shapes: list[Shape], outputs: list[Shape]) -> set[int]:
    """Dims of the inputs that no output has: contracted or reduced away (by value, as shrinking maps them)."""
    out = {d for o in outputs for d in o.dims}
    return {d for s in shapes for d in s.dims if d >= 2 and d not in out}


def plan_shrink(shapes: list[Shape], *, budget: int, cores: int, ub_bytes: int = 196608,
                outputs: list[Shape] | None = None, floors: dict[int, int] | None = None,
                groups: dict[int, int] | None = None, multiples: dict[int, int] | None = None) -> ShrinkPlan:
    """Map the largest dims to smaller ones until the case holds at most `budget` elements (keeping the
    reduction dims, those no output has, when that fits). `floors` (dim -> least value) keeps a dim that a
    convolution or pooling window slides over at least as long as the window needs (tasks/window_floors.py).
    `groups` (a group norm's channels -> its group count, a value the case's sizes do not hold otherwise):
    the channels shrink to a multiple of the channels per group, the group count in the same ratio (both
    mapped: the task's constructor argument shrinks with the case); when the count cannot be mapped alone
    (another dim has its value), the channels stay whole. `multiples` (dim -> m): the dim shrinks to a multiple
    of m (a grouped convolution's channels)."""
    floors, groups = dict(floors or {}), narrowing_groups(groups or {})
    dims = {d for s in shapes + (outputs or []) for d in s.dims}
    for c in [c for c, g in groups.items() if g in dims]:
        floors[c] = max(floors.get(c, 0), c)     # its groups cannot shrink alone: the channels stay whole
        del groups[c]
    before = _total(shapes, {})
    if before <= budget:
        return ShrinkPlan(elements_before=before, elements_after=before, budget=budget)
    keep = reduction_dims(shapes, outputs) if outputs else set()
    if keep:
        plan = _search(shapes, budget, cores, ub_bytes, before, keep, floors, groups, multiples or {})
        if plan is not None:
            plan.reduction = sorted(keep)
            return plan
    return _search(shapes, budget, cores, ub_bytes, before, set(), floors, groups, multiples or {}) or ShrinkPlan(
        elements_before=before, elements_after=before, budget=budget, fits=False,
        reason=f"{before} elements; no smaller dims keep the 32-byte residues within {budget} elements")


def narrowing_groups(groups: dict[int, int]) -> dict[int, int]:
    """The group norms that shrinking the channels alone would narrow: whole groups of more than one channel,
    more than one group (one group, or one a channel, shrinks with the channels by itself)."""
    return {c: g for c, g in groups.items() if 1 < g < c and c % g == 0}


def _search(shapes: list[Shape], budget: int, cores: int, ub_bytes: int, before: int,
            keep: set[int], floors: dict[int, int], groups: dict[int, int],
            multiples: dict[int, int]) -> ShrinkPlan | None:
    values = sorted({d for s in shapes for d in s.dims if d >= 2 and d not in keep}, reverse=True)
    for level in LEVELS:
        mapping: dict[int, int] = {}
        # different dims stay different, kept ones included; no dim takes a group count's value, as the worker
        # maps the sizes the Model's constructor asks for once more (8192 -> 512 then 512 -> 32 as a group count)
        taken = set(values) | keep | set(groups.values())
        for d in values:
            if _total(shapes, mapping) <= budget:
                break
            width = d // groups[d] if d in groups else 1
            modulus, floor = _constraints(shapes, d, level, cores, ub_bytes, floors,
                                          math.lcm(width, multiples.get(d, 1)))
            v = _smallest(d, modulus, floor, taken)
            if v is not None and d in groups and (mapping.get(groups[d], v // width) != v // width or
                                                  groups[d] not in mapping and v // width in taken):
                v = None                     # the group count would collide with another size
            if v is not None:
                mapping[d] = v
                taken.add(v)
                if d in groups:
                    mapping[groups[d]] = v // width
                    taken.add(v // width)
        after = _total(shapes, mapping)
        if after <= budget:
            return ShrinkPlan(mapping=mapping, elements_before=before, elements_after=after, budget=budget, kept=level)
    return None
