"""The DSL reference a model writes from, generated from the checker's own tables (the primitive and
instruction tables, the helper and scalar-function tables of the parsers, the dtypes and the registered
extern semantics), so what the checker accepts and what the model is told cannot drift apart. Only the
program skeleton and the rules that live in code rather than tables are written here by hand."""
from __future__ import annotations

import inspect
from functools import lru_cache

from kernelwright.tools.dsl.dtypes import DTYPES
from kernelwright.tools.dsl.externs import EXTERNS
from kernelwright.tools.dsl.optable import DEFAULT_ARCH, FORMS, ROUND_MODES, cast_pairs, ops
from kernelwright.tools.dsl.parse_expr import BUILTINS, HELPERS, HOST_ATTRS, HOST_ONLY, KERNEL_ONLY
from kernelwright.tools.dsl.parse_kernel import ARGS, SCALAR_FNS, KernelParser
from kernelwright.tools.dsl.primitives import prims

SKELETON = '''```python
"""What the operator computes."""
import adsl as A                      # the only import; never name anything else `A`
TILE = 2048                           # module constants: numbers and arithmetic over them

@A.tiling                             # host, on concrete shapes: inputs by name, `hw`, attributes by name
def tiling(x, hw, alpha):
    nb = max(1, min(hw.vector_cores, A.ceil_div(x.numel, TILE)))
    return A.Tiling(block_dim=nb, total=x.numel, tile=TILE, alpha=alpha)   # int/float fields -> t.<field>

@A.shapes                             # optional; default: every output shaped like the first input
def shapes(x, alpha):
    return {"y": x.shape}

@A.kernel(inputs={"x": (A.f32, A.f16)}, outputs={"y": "x"}, attrs={"alpha": 1.0})
def my_op(x, y, t):                   # inputs, outputs (GM tensors), then the tiling data
    xin = A.ub(x.dtype, t.tile)       # every tile declared at the top
    yout = A.ub(y.dtype, t.tile)
    lo, hi = A.block_span(t.total)
    for off, n in A.tiles(lo, hi, t.tile, stages=2):
        A.load(xin, x[off:], n)
        A.Muls(yout, xin, t.alpha, n)
        A.store(y[off:], yout, n)
```'''

RULES = (
    "`inputs`: name -> dtype columns (the kernel is compiled once per column); `outputs`: name -> columns, or the "
    "name of an input whose dtype column it follows (`\"x\"`: dtype only; its SHAPE comes from `@A.shapes`).",
    "Name inputs, outputs and attributes as the reference's forward arguments and init arguments. `A` is the DSL "
    "alias: nothing else may be called `A`; write a reference argument named `A` as `A_` (the check matches a "
    "trailing underscore to the reference's name).",
    "Kernel values are `index` (int64) and `scalar` (fp32); `/` between integers is rejected (use `//`). Tiles and "
    "GM views are `t[k:]` (k elements in; a tile view starts on 32 bytes). Counts are elements.",
    "Queue lifetime: a loaded tile is used only inside the loop body (block) of its `A.load`; an output tile is "
    "written only in the block that stores it and not after its `A.store`. A tile is either loaded or stored, "
    "never both (copy it with `A.copy`; GM to GM through the UB is `A.move`). Scratch tiles (neither) live "
    "everywhere.",
    "Calls with effects are statements of their own; scalar functions stand alone on the right of `v = ...`.",
    "`A.sync_all()` is a barrier across blocks: every block calls it equally often; partial results go through "
    "`A.workspace`.",
)


def _dtypes(ds) -> str:
    return " ".join(ds)


def _scalar_form(fn: str, kind: str) -> str:
    return {"tile": f"A.{fn}(tile, n)", "get": f"A.{fn}(tile, i, bound=None)"}.get(kind, f"A.{fn}(s)")


def _extern_lines() -> list[str]:
    out = []
    for name, fn in sorted(EXTERNS.items()):
        doc = inspect.getdoc(fn) or ""
        params = [p for p in inspect.signature(fn).parameters if p not in ("reads", "writes")]
        out.append(f"- `numpy=\"{name}\"` ({', '.join(p + '=' for p in params)}): {doc.splitlines()[0] if doc else ''}")
    return out


@lru_cache(maxsize=4)
def reference_card(arch: str = DEFAULT_ARCH, extra_semantics: tuple[str, ...] = ()) -> str:
    """Markdown: the language in the checker's own terms (signatures, dtypes on `arch`, semantics); a caller that
    resolves more extern semantics than the registry (agent.dslkit) documents them in `extra_semantics`."""
    helpers = ", ".join(f"A.{h}" for h in HELPERS)
    builtins = ", ".join(BUILTINS)
    lines = ["## Program", SKELETON, "", "dtypes: " + " ".join(f"A.{d}" for d in DTYPES) + "; `A.inf`.", ""]
    lines += [f"- {r}" for r in RULES]
    lines += ["", "## Host functions (@A.tiling, @A.shapes)",
              f"Calls: {builtins}, {helpers}, " + ", ".join(f"A.{h}" if h != "len" else h for h in HOST_ONLY)
              + "; attributes " + " ".join(f".{a}" for a in sorted(HOST_ATTRS))
              + " (tensors: shape dtype numel ndim; dtypes: size; hw: the rest). Statements: assignment, `+=`, "
                "if/elif/else, `for i in range(...)`, `assert cond, \"why\"`; `@A.tiling` ends with "
                "`return A.Tiling(block_dim=..., field=...)`, `@A.shapes` with `return {\"y\": shape, ...}`.",
              "", "## Kernel",
              f"Loops: {KernelParser.loops}; `lo, hi = A.block_span(total[, align])` (this block's share); if/else.",
              f"Expressions: {builtins}, {helpers}, " + ", ".join(f"A.{k}()" for k in KERNEL_ONLY) + ".",
              "Scalar functions (`v = A.f(...)`): "
              + ", ".join(_scalar_form(f, kind) for f, kind in SCALAR_FNS.items()) + ".",
              "", "Primitives:"]
    for p in prims().values():
        dts = "; ".join(f"{k}: {_dtypes(v)}" for k, v in p.dtypes.items())
        lines.append(f"- `{p.form}`: {p.summary}" + (f" [{dts}]" if dts else ""))
    lines += ["", f"Vector instructions (count form: the first n elements; dtypes on {arch}):"]
    table = ops()
    for form in FORMS:
        names = [o for o in table.values() if o.form == form]
        by_dtypes: dict[tuple[str, ...], list[str]] = {}
        for o in names:
            by_dtypes.setdefault(o.accepted(arch), []).append(o.name)
        for dts, group in by_dtypes.items():
            call = ", ".join(ARGS[form])
            names_text = "/".join(f"A.{g}" for g in group)
            lines.append(f"- `{names_text}({call})` [{_dtypes(dts) or 'any'}]")
    lines.append(f"Cast round modes: {', '.join(ROUND_MODES)} or \"auto\"; pairs: {' '.join(cast_pairs(arch))}.")
    lines += ["", "## Extern holes",
              "`A.extern(\"name\", \"what it does\", reads=[tiles or GM], writes=[...], numpy=\"<semantics>\", "
              "n=n, ...)`: a call the generator cannot emit; the checker runs the named semantics on the arrays "
              "(each read/write "
              "from its view offset to the end of its capacity) and the lowering fills the hole with AscendC. "
              "Semantics (keywords after reads/writes are passed on):"]
    lines += _extern_lines() + [f"- {line}" for line in extra_semantics]
    return "\n".join(lines)
