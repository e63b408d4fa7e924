"""The tiling knobs of a DSL program, and the program with one knob turned. A DSL program states its
tiling in the open: the host `@A.tiling` function ends in `return A.Tiling(block_dim=nb, ..., tile=tile)`
and the kernel's loops say `A.tiles(lo, hi, t.tile, stages=2)`. A knob is one of those choices:

* `double_buffer`: every `A.tiles`/`A.range` loop of the kernel with `stages=2` (copy-in of the next
  tile overlaps the compute of this one; the queues take two slots per tile);
* `blocks`: the block count (`block_dim=<name>`), doubled up to the SoC's cores or halved;
* `tile:<field>`: a tile or chunk length passed to the kernel (`tile`, `chunk`, the cube's `bm`, `bn`,
  `tn`), doubled or halved at its alignment.

A turned knob rewrites the tiling function's last statement's inputs (a line `nb = ...` just before the
return), so every field computed in the return from the same name (`lanes=min(chunk, N)`, `slots=8 * nb`)
follows. Nothing here judges a variant: the DSL check and the referee do; a variant that breaks a
rule (UB capacity) or a result is dropped by them."""
from __future__ import annotations

import ast
from dataclasses import dataclass

# tile-length fields the builtin writer and the DSL examples pass to their kernels, with their alignment
# (`cols` is a row length in the softmax family, not a tile: it is never a knob)
TILE_FIELDS = {"tile": 64, "chunk": 64, "bm": 16, "bn": 16, "tn": 16}


@dataclass(frozen=True)
class Turn:
    """One knob turned one way: what a candidate changes, in words and in source."""

    knob: str              # double_buffer | blocks | tile:<field>
    setting: str           # e.g. "on", "x2", "/2"
    source: str            # the whole DSL program with the change

    @property
    def label(self) -> str:
        return f"{self.knob} {self.setting}"


def _tiling_return(tree: ast.Module) -> tuple[ast.FunctionDef, ast.Return, ast.Call] | None:
    for fn in tree.body:
        if isinstance(fn, ast.FunctionDef) and any(ast.unparse(d) == "A.tiling" for d in fn.decorator_list):
            for st in reversed(fn.body):
                if isinstance(st, ast.Return) and isinstance(st.value, ast.Call) \
                        and ast.unparse(st.value.func) == "A.Tiling":
                    return fn, st, st.value
    return None


def _copies(body: list[ast.stmt]) -> bool:
    """The loop body itself (not a nested loop) loads or stores: its tiles go through queues."""
    return any(isinstance(st, ast.Expr) and isinstance(st.value, ast.Call)
               and ast.unparse(st.value.func) in ("A.load", "A.store") for st in body)


def _loops(tree: ast.Module) -> list[ast.Call]:
    """The `A.tiles`/`A.range` calls heading `for` loops of the kernel functions that copy tiles in or out."""
    out = []
    for fn in tree.body:
        if isinstance(fn, ast.FunctionDef) and any("A.kernel" in ast.unparse(d) for d in fn.decorator_list):
            for node in ast.walk(fn):
                if isinstance(node, ast.For) and isinstance(node.iter, ast.Call) \
                        and ast.unparse(node.iter.func) in ("A.tiles", "A.range") and _copies(node.body):
                    out.append(node.iter)
    return out


def _offset(lines: list[str], line: int, col: int) -> int:
    """Character offset of (1-based line, 0-based column) in the joined source."""
    return sum(len(x) for x in lines[:line - 1]) + len(lines[line - 1].encode()[:col].decode())


def _double_buffered(source: str, tree: ast.Module) -> str | None:
    """The program with `stages=2` on every loop that lacks it, or None when all have it."""
    lines = source.splitlines(keepends=True)
    edits: list[tuple[int, int, str]] = []        # (start, end, text) in character offsets
    for call in _loops(tree):
        kw = next((k for k in call.keywords if k.arg == "stages"), None)
        if kw is None:
            end = _offset(lines, call.end_lineno, call.end_col_offset) - 1      # before the closing paren
            edits.append((end, end, ", stages=2"))
        elif not (isinstance(kw.value, ast.Constant) and kw.value.value == 2):
            edits.append((_offset(lines, kw.value.lineno, kw.value.col_offset),
                          _offset(lines, kw.value.end_lineno, kw.value.end_col_offset), "2"))
    if not edits:
        return None
    out = source
    for start, end, text in sorted(edits, reverse=True):
        out = out[:start] + text + out[end:]
    return out


def _before_return(source: str, ret: ast.Return, statement: str) -> str:
    lines = source.splitlines(keepends=True)
    pad = lines[ret.lineno - 1][:ret.col_offset]
    return "".join(lines[:ret.lineno - 1] + [f"{pad}{statement}  # perf knob\n"] + lines[ret.lineno - 1:])


def turns(source: str) -> list[Turn]:
    """Every one-knob variant of a DSL program, most promising first (double buffering, then the tile
    lengths up, the block count up, then the other directions). A program that does not parse, or has
    no `@A.tiling` function ending in `return A.Tiling(...)`, has no knobs."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    out: list[Turn] = []
    db = _double_buffered(source, tree)
    if db is not None:
        out.append(Turn("double_buffer", "on", db))
    found = _tiling_return(tree)
    if found is None:
        return out
    _, ret, call = found
    fields = {k.arg: k.value for k in call.keywords if k.arg}
    tiles = [(f, v.id) for f, v in fields.items() if f in TILE_FIELDS and isinstance(v, ast.Name)]
    nb = fields.get("block_dim")
    up, down = [], []
    for field, name in tiles:
        a = TILE_FIELDS[field]
        up.append(Turn(f"tile:{field}", "x2", _before_return(source, ret, f"{name} = {name} * 2")))
        down.append(Turn(f"tile:{field}", "/2", _before_return(
            source, ret, f"{name} = max({a}, A.align_down({name} // 2, {a}))")))
    if isinstance(nb, ast.Name):
        cores = "hw.cube_cores" if any(f in ("bm", "bn") for f, _ in tiles) else "hw.vector_cores"
        up.append(Turn("blocks", "x2", _before_return(source, ret, f"{nb.id} = max(1, min({cores}, {nb.id} * 2))")))
        down.append(Turn("blocks", "/2", _before_return(source, ret, f"{nb.id} = max(1, {nb.id} // 2)")))
    return out + up + down


def tiling_values(source: str, shapes: list[list[int]], soc: str | None = None) -> tuple | None:
    """The block count and tiling fields the program's `@A.tiling` function gives for these input shapes
    (the inputs' first declared dtypes, the attributes' defaults), or None when they cannot be worked out
    here (a program that does not parse, shapes that are not one per kernel input). A knob turned to a
    value the tiling clamps away gives the same values as the program it came from: nothing to build."""
    from kernelwright.tools.dsl.dtypes import DTYPES
    from kernelwright.tools.dsl.errors import DslError
    from kernelwright.tools.dsl.host_eval import TensorSpec, run_tiling
    from kernelwright.tools.dsl.parse_program import parse_program
    from kernelwright.tools.hardware import load_soc
    try:
        program = parse_program(source, "kernel.dsl.py")
        if len(program.sig.inputs) != len(shapes):
            return None
        specs = {t.name: TensorSpec(tuple(int(d) for d in s), DTYPES[t.dtypes[0]])
                 for t, s in zip(program.sig.inputs, shapes)}
        r = run_tiling(program, specs, {}, load_soc(soc))
    except (DslError, KeyError, ValueError, ArithmeticError):
        return None
    return r.block_dim, tuple(sorted(r.fields.items()))
