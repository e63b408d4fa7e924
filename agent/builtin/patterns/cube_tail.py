"""A GEMM or a convolution followed by what its own recogniser (matmul, conv) cannot fuse into the block
epilogue: norms over rows or groups, softmax, logsumexp, reductions, pooling, and the elementwise ops between
them (MultiKernelBench's `fuse` chains). One MIX kernel in stages separated by barriers: the cube stage is the
recogniser's program for the longest prefix it takes (its result to a GM workspace), then the tail's segments
as the general composer writes them (patterns/tail.py), joined by patterns/stitch.py. The cube work is the
recogniser's (MMAD, vector work per element of C); each tail segment reads its input once or twice per pass."""
from __future__ import annotations

import ast

from kernelwright.agent.builtin.chain import Unsupported
from kernelwright.agent.builtin.dslgen import ident
from kernelwright.agent.builtin.graphview import OpGraph, ref
from kernelwright.agent.builtin.patterns import Emitted, conv, matmul
from kernelwright.agent.builtin.patterns.conv_spec import FUNCTIONS as CONV_FUNCTIONS, MODULES as CONV_MODULES
from kernelwright.agent.builtin.patterns.compose import attempt
from kernelwright.agent.builtin.patterns.stitch import Stage, Stitcher, View
from kernelwright.agent.builtin.patterns.tail import KNOWN as TAIL_KNOWN, Segments, Val, regroup
from kernelwright.agent.builtin.patterns.tail_ops import BATCHNORMS

KNOWN = TAIL_KNOWN | matmul.KNOWN | conv.KNOWN | {"diag"}


def _prefix(trace: dict, last: str) -> dict:
    """The task's graph up to node `last`, which it returns."""
    nodes = []
    for n in trace["nodes"]:
        if n["kind"] == "output":
            break
        nodes.append(n)
        if n["name"] == last:
            break
    out = {"name": "output", "op": "output", "kind": "output", "args": [{"node": last}], "kwargs": {}}
    return dict(trace, nodes=[dict(n) for n in nodes] + [out])


def _mentions(v, names: set[str]) -> bool:
    if isinstance(v, list):
        return any(_mentions(x, names) for x in v)
    if isinstance(v, dict) and "node" not in v:
        return any(_mentions(x, names) for x in v.values())
    return ref(v) in names


def _head(g: OpGraph, core, tail: list, name: str):
    """(the cube stage's program, how many tail nodes it took): the longest prefix matmul or conv writes
    whose values the rest does not read (only its result)."""
    is_conv = core.op in CONV_MODULES or core.op in CONV_FUNCTIONS
    for j in range(len(tail), -1, -1):
        last = tail[j - 1].name if j else core.name
        inside = {core.name} | {n.name for n in tail[:j]}
        if any(_mentions(list(n.args) + list(n.kwargs.values()), inside - {last}) for n in tail[j:]):
            continue
        pg = OpGraph(_prefix(g.trace, last))
        em = conv.match(pg, name) if is_conv else matmul.match(pg, name, mix=True)
        if em is not None:
            return em, j
    return None, 0


def _kernel_params(source: str) -> list[str]:
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef) and node.decorator_list and isinstance(node.decorator_list[0], ast.Call):
            return [a.arg for a in node.args.args]
    return []


def _is_core(n) -> bool:
    return n.op in matmul.PRODUCTS or n.op in CONV_MODULES or n.op in CONV_FUNCTIONS


def later_cube(seg: Segments, n) -> Stage | None:
    """A second GEMM or convolution (an nn.Linear / nn.Conv module) over the tail's value: its recogniser's
    program with that value as its input (read from the workspace)."""
    if not _is_core(n) or n.kind != "call_module" or len(n.args) != 1 or not ref(n.args[0]):
        return None
    src = seg.g.node(seg.alias.get(ref(n.args[0]), ref(n.args[0])))
    if src.shape is None:
        return None
    ph = {"name": "x", "op": "placeholder", "kind": "placeholder", "args": [], "kwargs": {}, "shape": list(src.shape),
          "dtype": "float32"}
    node = {"name": n.name, "op": n.op, "kind": n.kind, "args": [{"node": "x"}], "kwargs": {}, "shape": list(n.shape),
            "dtype": "float32", "module": n.module, "target": n.target}
    out = {"name": "output", "op": "output", "kind": "output", "args": [{"node": n.name}], "kwargs": {}}
    pg = OpGraph(dict(seg.g.trace, nodes=[ph, node, out]))
    em = matmul.match(pg, seg.name, mix=True) if n.op in matmul.PRODUCTS else conv.match(pg, seg.name)
    if em is None:
        return None
    ins = _kernel_params(em.source)[:-2]
    return Stage(em.source, [None if p == "x" else View(p, [], whole=True) for p in ins])


def batchnorm_as_ops(trace: dict) -> dict:
    """An eval-mode BatchNorm1d of a GEMM's (rows, features) result written as the elementwise ops it is
    ((x - mean) / sqrt(var + eps) * weight + bias, parameters read as per-column vectors): the matmul epilogue
    then takes it, loading each vector once per block instead of once per chunk in a later stage."""
    params = {p["name"]: p for p in trace.get("params", [])}
    nodes, by = [], {n["name"]: n for n in trace["nodes"]}
    for n in trace["nodes"]:
        src = by.get(ref(n["args"][0])) if n.get("args") else None
        keys = [f"{n.get('target')}.{p}" for p in ("running_mean", "running_var", "weight", "bias")]
        if n["op"] not in BATCHNORMS or n["kind"] != "call_module" or src is None or len(src.get("shape") or []) != 2 \
                or not all(k in params for k in keys[:2]):
            nodes.append(n)
            continue
        shape, c = n["shape"], [n["shape"][1]]
        leaf = {}
        for k in keys:
            if k in params:
                leaf[k] = ident(k, set(by))
                nodes.append({"name": leaf[k], "op": "get_attr", "kind": "get_attr", "args": [], "kwargs": {},
                              "shape": list(params[k]["shape"]), "dtype": params[k]["dtype"], "target": k})

        def ew(nm, op, a, b, sh):
            nodes.append({"name": nm, "op": op, "kind": "call_function", "args": [a, b], "kwargs": {}, "shape": sh,
                          "dtype": n["dtype"]})
            return {"node": nm}
        eps = float((n.get("module") or {}).get("eps", 1e-5))
        d = ew(f"{n['name']}_d", "sub", n["args"][0], {"node": leaf[keys[0]]}, shape)
        sd = {"node": f"{n['name']}_sd"}
        nodes.append({"name": sd["node"], "op": "sqrt", "kind": "call_function", "dtype": n["dtype"], "shape": c,
                      "args": [ew(f"{n['name']}_v", "add", {"node": leaf[keys[1]]}, eps, c)], "kwargs": {}})
        v = ew(f"{n['name']}_n", "div", d, sd, shape)
        affine = (n.get("module") or {}).get("affine", True) and keys[2] in leaf and keys[3] in leaf
        if affine:
            v = ew(f"{n['name']}_w", "mul", v, {"node": leaf[keys[2]]}, shape)
        ew(n["name"], "add", v, {"node": leaf[keys[3]]} if affine else 0.0, shape)
    return dict(trace, nodes=nodes)


def compose(g: OpGraph, name: str) -> Emitted:
    if any(n.op in matmul.PRODUCTS for n in g.compute):
        g = OpGraph(batchnorm_as_ops(g.trace))
    cores = [n for n in g.compute if _is_core(n)]
    out = g.single_output()
    if not cores or out is None or g.mutated or g.scalar_inputs:
        raise Unsupported([], "a GEMM or convolution, one result, no in-place updates")
    core = cores[0]
    nodes = [n for n in g.compute if n.kind != "get_attr" and not (n.op == "getattr" and n.shape is None)]
    if any(n.op not in matmul.TRANSPOSES | matmul.PASS for n in nodes[:nodes.index(core)]):
        return _staged_from_input(g, nodes, name)
    tail = nodes[nodes.index(core) + 1:]
    head, took = _head(g, core, tail, name)
    if head is None:
        raise Unsupported([core.op], f"the {core.op} itself (its recogniser refuses it)")
    rest = tail[took:]
    if not rest:           # (a batch norm the rewrite above made elementwise, or the matmul/conv recogniser's own)
        return head
    params = _kernel_params(head.source)
    ins = params[:-2]
    taken = {ident(t, set()) for t in [p.name for p in g.placeholders] + list(g.params)} | set(ins)
    st = Stitcher(ins, ident("y", taken))
    dims = st.add(Stage(head.source, [View(p, [], whole=True) for p in ins]))
    last = tail[took - 1] if took else core
    # (the stage's shapes function gives the product's shape; reshapes it took as epilogue ops view it)
    start = Val("ws_0", regroup(list(core.shape), dims, list(last.shape)), list(last.shape))
    seg = Segments(g, st, start, last.name, name, later_cube)
    for n in rest:
        seg.step(n)
    if seg.nodes or seg.val.gm != f"ws_{len(st.stages) - 1}" or seg.val.strides is not None:
        seg.close(final=True)
    ops = ", ".join(dict.fromkeys(n.op for n in [core, *tail]))
    summary = (f"{ops}: {core.op} on the cube unit ({head.family} stage), then {len(st.stages) - 1} more stage(s) "
               "through GM workspaces, one MIX kernel")
    return Emitted(head.family, summary, st.source(name, f"{name}: {summary} (written by the builtin writer).",
                                                   seg.val.dims))


def match(g: OpGraph, name: str) -> Emitted | None:
    for write in (compose, diag_product):
        try:
            return write(OpGraph(g.trace), name)
        except Unsupported:
            pass
    return None


def _staged_from_input(g: OpGraph, nodes: list, name: str) -> Emitted:
    """Ops before the first GEMM/convolution (a pooling of the input, say): every op a stage or a segment,
    from the one input on."""
    ins = g.tensor_inputs
    if len(ins) != 1 or ins[0].dtype != "float32" and ins[0].dtype != "float16":
        raise Unsupported([], "ops before the cube op, on more than one input")
    x = ins[0]
    gm = ident(x.name, set())
    taken = {ident(t, set()) for t in [p.name for p in g.placeholders] + list(g.params)}
    st = Stitcher([gm], ident("y", taken))
    seg = Segments(g, st, Val(gm, [f"{gm}.shape[{j}]" for j in range(len(x.shape))], list(x.shape), workspace=False),
                   x.name, name, later_cube)
    for n in nodes:
        seg.step(n)
    if seg.nodes or seg.val.gm != f"ws_{len(st.stages) - 1}" or seg.val.strides is not None:
        seg.close(final=True)
    ops = ", ".join(dict.fromkeys(n.op for n in nodes))
    summary = (f"{ops}: {len(st.stages)} stage(s) (cube stages for the GEMM/convolution) through GM workspaces, "
               "one MIX kernel")
    family = "convolution" if any(n.op in CONV_MODULES for n in nodes) else "matmul"
    source = st.source(name, f"{name}: {summary} (written by the builtin writer).", seg.val.dims)
    return Emitted(family, summary, source)


def diag_product(g: OpGraph, name: str) -> Emitted:
    """diag(v) @ B (or B @ diag(v)): no GEMM at all, each row (column) of B scaled by v: one composer
    program over B with v seen as a column (row)."""
    out = g.single_output()
    if out is None or out.op not in ("matmul", "mm") or g.mutated or g.scalar_inputs or len(out.args) != 2:
        raise Unsupported([], "diag(v) @ B")
    a, b = (g.node(ref(v)) if ref(v) else None for v in out.args)
    left = a is not None and a.op == "diag"
    d, m = (a, b) if left else (b, a)
    if d is None or m is None or d.op != "diag" or m.kind != "placeholder" or len(m.shape or []) != 2 or \
            d.arg(1, "diagonal", 0) != 0 or not ref(d.args[0]):
        raise Unsupported([], "diag(v) @ B of inputs")
    v = g.node(ref(d.args[0]))
    if v.kind != "placeholder" or len(v.shape or []) != 1:
        raise Unsupported([], "diag of a 1-d input")
    vn, mn = ident(v.name, set()), ident(m.name, set())
    vdims, vshape = ([f"{vn}.shape[0]", "1"], [v.shape[0], 1]) if left else ([f"{vn}.shape[0]"], [v.shape[0]])
    def ph(nm: str, shape: list[int]) -> dict:
        return {"name": nm, "op": "placeholder", "kind": "placeholder", "args": [], "kwargs": {}, "shape": shape,
                "dtype": "float32"}
    nodes = [ph("zin", list(m.shape)), ph("lf", vshape),
             {"name": "s0", "op": "mul", "kind": "call_function", "args": [{"node": "zin"}, {"node": "lf"}],
              "kwargs": {}, "shape": list(m.shape), "dtype": "float32"},
             {"name": "output", "op": "output", "kind": "output", "args": [{"node": "s0"}], "kwargs": {}}]
    em, why = attempt(OpGraph({"ok": True, "task": name, "nodes": nodes, "params": []}), name)
    if em is None:
        raise Unsupported([], why)
    st = Stitcher([mn], ident("y", {vn, mn}))
    st.add(Stage(em.source, [View(mn, [f"{mn}.shape[0]", f"{mn}.shape[1]"]), View(vn, vdims)]))
    side = "row" if left else "column"
    summary = f"diag(v) @ B as B scaled by v per {side} (no GEMM: the product of a diagonal matrix is elementwise)"
    return Emitted("broadcast", summary, st.source(name, f"{name}: {summary} (written by the builtin writer)."))
