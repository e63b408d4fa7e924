"""Text of DSL programs: names, the `@A.kernel` signature, the common tiling functions. The shapes
follow the DSL's own examples (prompts/examples/), so what the builtin writer emits reads like them."""
from __future__ import annotations

import keyword
import re

FLOATS = "(A.f32, A.f16, A.bf16)"
RESERVED = {"A", "hw", "t", "n", "off", "lo", "hi", "tiling", "shapes"}


def ident(name: str, taken: set[str]) -> str:
    """A DSL identifier for a task name, unique among `taken` (which it joins)."""
    base = re.sub(r"\W", "_", name).strip("_") or "v"
    if base[0].isdigit() or keyword.iskeyword(base) or base in RESERVED:
        base = f"{base}_"
    out, k = base, 1
    while out in taken:
        k += 1
        out = f"{base}{k}"
    taken.add(out)
    return out


def kernel_name(task_name: str) -> str:
    name = re.sub(r"[^0-9a-zA-Z]+", "_", task_name).strip("_").lower() or "kernel"
    return f"k_{name}" if name[0].isdigit() or keyword.iskeyword(name) else name


def doc(text: str) -> str:
    return '"""' + text.replace('"""', "'''") + '"""\nimport adsl as A\n'


def decorator(inputs: list[str], outputs: dict[str, str], attrs: dict[str, float] | None = None,
              bools: tuple[str, ...] = ()) -> str:
    """`bools`: the inputs that are bool masks in every dtype case (the rest are floats)."""
    ins = ", ".join(f'"{i}": {"(A.bool, A.bool, A.bool)" if i in bools else FLOATS}' for i in inputs)
    outs = ", ".join(f'"{o}": "{like}"' for o, like in outputs.items())
    extra = ""
    if attrs:
        extra = ", attrs={" + ", ".join(f'"{k}": {float(v)!r}' for k, v in attrs.items()) + "}"
    return f"@A.kernel(inputs={{{ins}}}, outputs={{{outs}}}{extra})"


def flat_tiling(first: str, params: list[str], io_bytes: str, f32_tiles: int, advanced: bool,
                fields: dict[str, str] | None = None) -> str:
    """A flat split of `first.numel` elements over the blocks (elementwise kernels): at least 2048
    elements a block, tiles sized from the UB budget, four tiles or more a block to overlap."""
    per_elem = f"{io_bytes} + {4 * f32_tiles + (8 if advanced else 0)}"
    comment = f"{f32_tiles} fp32 scratch tile(s)" + (" + the advanced API's temporary (two fp32 tiles)" if advanced else "")
    extra = "".join(f", {k}={v}" for k, v in (fields or {}).items())
    return f'''@A.tiling
def tiling({", ".join(params + ["hw"])}):
    nb = max(1, min(hw.vector_cores, A.ceil_div({first}.numel, 2048)))     # at least 2048 elements per block
    # UB bytes per tile element: the I/O tiles (two slots each) + {comment}
    per_elem = {per_elem}
    tile = A.align_down((hw.ub_bytes - 1024) // per_elem, 64)
    tile = max(64, min(tile, A.align_up(A.ceil_div({first}.numel, 4 * nb), 64)))   # >= 4 tiles per block
    return A.Tiling(block_dim=nb, total={first}.numel, tile=tile{extra})
'''


def indent(lines: list[str], depth: int) -> str:
    pad = "    " * depth
    return "\n".join(pad + line if line else "" for line in lines)
