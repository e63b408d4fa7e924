"""Indexing, emitted from the DSL's index/ examples with the example's tensors renamed to the task's (so the
referee binds them by name): gather / take_along_dim along the last axis of a 2-D tensor, scatter and
scatter_add along it, index_select of rows or columns and nn.Embedding (a row per index, each index bounds-checked),
masked_fill with a constant, and torch.where over three tensors of one shape."""
from __future__ import annotations

import io
import math
import re
import tokenize

from kernelwright.agent.builtin.dslgen import ident
from kernelwright.agent.builtin.examples import instantiate
from kernelwright.agent.builtin.graphview import FLOAT_DTYPES, Node, OpGraph, ref
from kernelwright.agent.builtin.patterns import Emitted
from kernelwright.agent.builtin.patterns.common import returns, work

KNOWN = {"gather", "take_along_dim", "scatter", "scatter_add", "index_select", "Embedding", "embedding", "masked_fill",
         "where"}
INDEX_DTYPES = ("int64",)


def _rename(src: str, names: dict[str, str]) -> str | None:
    """The program with each example tensor name (a whole word, in code and prose) replaced by the task's; None
    when a new name is already a name in the program's code (it would capture one of the example's own)."""
    words = {tok.string for tok in tokenize.generate_tokens(io.StringIO(src).readline) if tok.type == tokenize.NAME}
    if any(new in words and new != old for old, new in names.items()) or len(set(names.values())) != len(names):
        return None
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, names)) + r")\b")
    return pattern.sub(lambda m: names[m.group(1)], src)


def _input(g: OpGraph, v) -> Node | None:
    name = ref(v)
    n = g.node(name) if name else None
    return n if n is not None and n.kind == "placeholder" and n.shape is not None else None


def _emit(g: OpGraph, name: str, program: str, names: dict[str, Node | str], what: str,
          fill: str | None = None) -> Emitted | None:
    taken: set[str] = set()
    mapping = {old: (ident(new.name, taken) if isinstance(new, Node) else ident(new, taken)) for old, new in names.items()}
    src = instantiate(f"index/{program}.dsl.py", {}, name)
    if fill is not None:                      # the masked_fill example's fill value is -inf
        assert "A.where(yout, cond, -A.inf, xin, n)" in src, "the masked_fill example changed: update its fill edit"
        src = src.replace("A.where(yout, cond, -A.inf, xin, n)", f"A.where(yout, cond, {fill}, xin, n)")
    src = _rename(src, mapping)
    return Emitted("index", what, src) if src else None


def _along_last(g: OpGraph, n: Node, name: str) -> Emitted | None:
    """gather(x, 1, idx) / take_along_dim(x, idx, 1) / x.scatter(_add)(1, idx, src) on 2-D tensors."""
    if n.op == "take_along_dim":
        x, idx, dim, src = _input(g, n.args[0]), _input(g, n.arg(1, "indices")), n.arg(2, "dim"), None
    else:
        x, dim, idx = _input(g, n.args[0]), n.arg(1, "dim"), _input(g, n.arg(2, "index"))
        src = _input(g, n.arg(3, "src")) if n.op != "gather" else None
    if x is None or idx is None or not isinstance(dim, int) or len(x.shape) != 2 or len(idx.shape) != 2:
        return None
    if dim % 2 != 1 or idx.dtype not in INDEX_DTYPES or x.dtype not in FLOAT_DTYPES or idx.shape[0] != x.shape[0]:
        return None
    if n.op == "gather" or n.op == "take_along_dim":
        return _emit(g, name, "gather", {"x": x, "idx": idx}, f"{n.op} along the last axis of a 2-D tensor")
    if src is None or src.shape != idx.shape or src.dtype != x.dtype:
        return None
    return _emit(g, name, n.op, {"x": x, "idx": idx, "src": src}, f"{n.op} along the last axis of a 2-D tensor")


def _rows(g: OpGraph, n: Node, name: str) -> Emitted | None:
    """nn.Embedding / index_select(x, 0, idx): a row of the table per index; index_select(x, 1, idx): a gather
    of every row through one index list."""
    if n.op == "Embedding":
        w = g.params.get(f"{n.target}.weight")
        idx, table = _input(g, n.args[0]), (f"{n.target}.weight" if w else None)
        ok = w is not None and w["dtype"] == "float32" and len(w["shape"]) == 2 and not n.module.get("max_norm")
    elif n.op == "index_select":
        x, idx, dim = _input(g, n.args[0]), _input(g, n.arg(2, "index")), n.arg(1, "dim")
        table = x
        ok = x is not None and len(x.shape) == 2 and isinstance(dim, int) and idx is not None and len(idx.shape) == 1
        if ok and dim % 2 == 1 and x.dtype in FLOAT_DTYPES and idx.dtype in INDEX_DTYPES:
            return _emit(g, name, "index_select_cols", {"x": x, "idx": idx}, "index_select along the last axis")
        ok = ok and x.dtype == "float32" and dim % 2 == 0
    else:
        return None
    if not ok or idx is None or idx.dtype not in INDEX_DTYPES:
        return None
    return _emit(g, name, "embedding", {"idx": idx, "weight": table}, f"{n.op}: a row of the table per index")


def _elementwise(g: OpGraph, n: Node, name: str) -> Emitted | None:
    if n.op == "masked_fill":
        x, mask, value = _input(g, n.args[0]), _input(g, n.arg(1, "mask")), n.arg(2, "value")
        if x is None or mask is None or x.shape != mask.shape or mask.dtype != "bool" or x.dtype not in FLOAT_DTYPES:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
            return None
        fill = "-A.inf" if value == -math.inf else "A.inf" if value == math.inf else repr(float(value))
        return _emit(g, name, "masked_fill", {"x": x, "mask": mask}, f"masked_fill with {value}", fill=fill)
    if n.op == "where" and len(n.args) == 3:
        cond, a, b = (_input(g, v) for v in n.args)
        if None in (cond, a, b) or cond.dtype != "bool" or not cond.shape == a.shape == b.shape:
            return None
        if a.dtype != "float32" or b.dtype != "float32":
            return None
        return _emit(g, name, "where", {"cond": cond, "a": a, "b": b}, "where(cond, a, b) elementwise")
    return None


def match(g: OpGraph, name: str) -> Emitted | None:
    nodes = work(g)
    if len(nodes) != 1 or g.mutated or g.scalar_inputs or not returns(g, nodes[0]):
        return None
    n = nodes[0]
    return _along_last(g, n, name) or _rows(g, n, name) or _elementwise(g, n, name)
