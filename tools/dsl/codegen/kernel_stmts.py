"""Kernel statements -> C++ lines, with every synchronisation generated: queue EnQue/DeQue around
copies, Alloc/Free at the block boundaries the interpreter checks, V->S / S->V flags around scalar
reads and writes, MTE2<->V around extra copies into a live tile, MTE3->MTE2 between a store and a
later load of the same GM tensor, and a full barrier before SyncAll."""
from __future__ import annotations

from dataclasses import dataclass, field

from kernelwright.tools.cpp_text import comment_text
from kernelwright.tools.dsl import ir
from kernelwright.tools.dsl.codegen import kernel_prims
from kernelwright.tools.dsl.codegen.cpp_expr import KernelExpr, gm_ctype, safe
from kernelwright.tools.dsl.dtypes import DTYPES
from kernelwright.tools.dsl.optable import auto_mode, ops
from kernelwright.tools.dsl.roles import Roles, canonical_split
from kernelwright.tools.dsl.typecheck import tile_dtypes

MODES = {"none": "CAST_NONE", "rint": "CAST_RINT", "floor": "CAST_FLOOR", "ceil": "CAST_CEIL", "round": "CAST_ROUND",
         "trunc": "CAST_TRUNC", "odd": "CAST_ODD"}


@dataclass
class Method:
    name: str
    comment: str
    lines: list[str] = field(default_factory=list)
    params: str = ""


class Emitter:
    def __init__(self, program: ir.Program, roles: Roles, x: KernelExpr, tile_types: dict[str, str]):
        self.p, self.roles, self.x, self.tt = program, roles, x, tile_types
        self.source = program.source.splitlines()
        self.methods: list[Method] = []
        self.helpers: set[str] = set()
        self.holes: list[ir.Extern] = []
        self.run_allocates = False

    # ---- small pieces
    def comment(self, s: ir.Stmt) -> str:
        text = self.source[s.line - 1].strip() if 0 < s.line <= len(self.source) else ""
        return f"// line {s.line}: {comment_text(text)}"

    def tile(self, ref: ir.TileRef) -> str:
        base = safe(ref.name)
        return f"{base}[{self.x.expr(ref.offset)}]" if ref.offset is not None else base

    def gm_ctype(self, name: str) -> str:
        return gm_ctype(self.p, name, self.x)

    def que(self, name: str) -> str:
        return f"{safe(name)}Que"

    def gm(self, name: str, off: ir.Expr) -> str:
        o = self.x.expr(off)
        return f"{safe(name)}Gm" if o == "0" else f"{safe(name)}Gm[{o}]"

    def sync(self, event: str, out: list[str], ind: str) -> None:
        self.helpers.add("sync")
        out.append(f"{ind}KwSync<HardEvent::{event}>();")

    # ---- blocks
    def block(self, stmts: list[ir.Stmt], out: list[str], ind: str) -> None:
        for name in self.roles.block_stores.get(id(stmts), []):
            out.append(f"{ind}{safe(name)} = {self.que(name)}.AllocTensor<{self.tt[name]}>();")
        self.stmts(stmts, out, ind)
        for name in self.roles.block_loads.get(id(stmts), []):
            out.append(f"{ind}{self.que(name)}.FreeTensor({safe(name)});")

    def stmts(self, stmts: list[ir.Stmt], out: list[str], ind: str) -> None:
        for i, s in enumerate(stmts):
            prev = stmts[i - 1] if i else None
            nxt = stmts[i + 1] if i + 1 < len(stmts) else None
            self.stmt(s, out, ind, prev, nxt)

    def stmt(self, s: ir.Stmt, out: list[str], ind: str, prev=None, nxt=None) -> None:
        if isinstance(s, (ir.TileDecl, ir.WorkspaceDecl, ir.CubeDecl, ir.Pass)):
            return
        out.append(ind + self.comment(s))
        if isinstance(s, ir.Assign):
            if isinstance(s.value, ir.Call) and s.value.func == "block_span":
                self.helpers.add("span")
                a = s.value.args
                align = self.x.expr(a[1]) if len(a) > 1 else "1"
                out.append(f"{ind}KwBlockSpan({self.x.expr(a[0])}, {align}, {safe(s.targets[0])}, {safe(s.targets[1])});")
            else:
                out.append(f"{ind}{safe(s.targets[0])} = {self.value(s.targets[0], s.value)};")
        elif isinstance(s, ir.AugAssign):
            op = {"//": "/"}.get(s.op, s.op)
            scalar = self.p.kernel_types.get(s.target) == "scalar"
            v = self.x.as_float(s.value) if scalar else self.x.expr(s.value)
            out.append(f"{ind}{safe(s.target)} {op}= {v};")
        elif isinstance(s, ir.If):
            out.append(f"{ind}if ({self.x.expr(s.cond)}) {{")
            self.block(s.body, out, ind + "    ")
            if s.orelse:
                out.append(f"{ind}}} else {{")
                self.block(s.orelse, out, ind + "    ")
            out.append(f"{ind}}}")
        elif isinstance(s, ir.For):
            self.loop(s, out, ind)
        elif isinstance(s, ir.Load):
            self.load(s, out, ind, prev, nxt, inline=True)
        elif isinstance(s, ir.Store):
            self.store(s, out, ind, prev, nxt, inline=True)
        elif isinstance(s, ir.Move):
            self.move(s, out, ind)
        elif isinstance(s, ir.VecOp):
            self.vec(s, out, ind)
        elif isinstance(s, ir.ScalarCall):
            self.scalar_call(s, out, ind)
        elif isinstance(s, ir.SetValue):
            t = self.tt[s.tile.name]
            out.append(f"{ind}{self.tile(s.tile)}.SetValue({self.x.expr(s.index)}, static_cast<{t}>({self.number(s.value)}));")
            self.sync("S_V", out, ind)
        elif isinstance(s, ir.SyncAll):
            out.append(f"{ind}PipeBarrier<PIPE_ALL>();")
            out.append(f"{ind}SyncAll();")
        elif isinstance(s, ir.Extern):
            self.extern(s, out, ind)
        elif isinstance(s, ir.Matmul):
            kernel_prims.matmul(self, s, out, ind)
        elif isinstance(s, ir.Gather):
            kernel_prims.gather(self, s, out, ind)
        elif isinstance(s, ir.Scatter):
            kernel_prims.scatter(self, s, out, ind)
        elif isinstance(s, ir.Where):
            kernel_prims.where(self, s, out, ind)

    def value(self, target: str, e: ir.Expr) -> str:
        return self.x.as_float(e) if self.p.kernel_types.get(target) == "scalar" else self.x.expr(e)

    def number(self, e: ir.Expr) -> str:
        return self.x.expr(e)

    # ---- loops
    def loop(self, s: ir.For, out: list[str], ind: str) -> None:
        v0 = safe(s.vars[0])
        start, stop, step = (self.x.expr(e) for e in (s.start, s.stop, s.step))
        out.append(f"{ind}for ({v0} = {start}; {v0} < {stop}; {v0} += {step}) {{")
        inner = ind + "    "
        if s.kind == "tiles":
            self.x.helpers.add("minmax")
            out.append(f"{inner}{safe(s.vars[1])} = KwMin({step}, {stop} - {v0});")
        if s.kind == "tiles" or s.stages == 2:
            lead, trail = canonical_split(s, self.roles)
            if lead or trail:
                self.split(s, lead, trail, out, inner)
                out.append(f"{ind}}}")
                return
        self.block(s.body, out, inner)
        out.append(f"{ind}}}")

    def split(self, s: ir.For, lead: int, trail: int, out: list[str], ind: str) -> None:
        """The canonical pipeline: CopyIn<k> (leading loads), Compute<k>, CopyOut<k> (trailing stores)."""
        k = s.index
        body = s.body
        loads, middle, stores = body[:lead], body[lead:len(body) - trail], body[len(body) - trail:]
        if loads:
            m = Method(f"CopyIn{k}", f"CopyIn of the loop at line {s.line}: GM -> VECIN queues")
            for i, st in enumerate(loads):
                self.load(st, m.lines, "    ", loads[i - 1] if i else None,
                          loads[i + 1] if i + 1 < len(loads) else None, inline=False)
            self.methods.append(m)
            out.append(f"{ind}CopyIn{k}();")
        c = Method(f"Compute{k}", f"Compute of the loop at line {s.line}")
        queued = list(dict.fromkeys(st.dst.name for st in loads))
        for name in queued:
            c.lines.append(f"    {safe(name)} = {self.que(name)}.DeQue<{self.tt[name]}>();")
        for name in self.roles.block_stores.get(id(body), []):
            c.lines.append(f"    {safe(name)} = {self.que(name)}.AllocTensor<{self.tt[name]}>();")
        self.stmts(middle, c.lines, "    ")
        for name in dict.fromkeys(st.src.name for st in stores):
            c.lines.append(f"    {self.que(name)}.EnQue({safe(name)});")
        for name in self.roles.block_loads.get(id(body), []):
            c.lines.append(f"    {self.que(name)}.FreeTensor({safe(name)});")
        self.methods.append(c)
        out.append(f"{ind}Compute{k}();")
        if stores:
            m = Method(f"CopyOut{k}", f"CopyOut of the loop at line {s.line}: VECOUT queues -> GM")
            for i, st in enumerate(stores):
                self.store(st, m.lines, "    ", stores[i - 1] if i else None,
                           stores[i + 1] if i + 1 < len(stores) else None, inline=False)
            self.methods.append(m)
            out.append(f"{ind}CopyOut{k}();")

    # ---- copies
    def copy_params(self, s, tile: ir.TileRef, gm_to_ub: bool) -> tuple[str, str]:
        t = self.tt[tile.name]
        n = self.x.expr(s.n)
        rows = self.x.expr(s.rows) if s.rows is not None else "1"
        ub_stride = s.dst_stride if gm_to_ub else s.src_stride
        gm_stride = s.src_stride if gm_to_ub else s.dst_stride
        gm_gap = f"static_cast<uint32_t>(({self.x.expr(gm_stride)} - {n}) * sizeof({t}))" if gm_stride is not None else "0"
        if ub_stride is not None:
            self.x.helpers.add("int")
            epb = f"static_cast<int64_t>(32 / sizeof({t}))"
            ub_gap = f"static_cast<uint32_t>(({self.x.expr(ub_stride)} - KwAlignUp({n}, {epb})) / {epb})"
        else:
            ub_gap = "0"
        src_gap, dst_gap = (gm_gap, ub_gap) if gm_to_ub else (ub_gap, gm_gap)
        params = (f"DataCopyExtParams{{static_cast<uint16_t>({rows}), static_cast<uint32_t>({n} * sizeof({t})), "
                  f"{src_gap}, {dst_gap}, 0}}")
        return params, t

    def whole_blocks(self, s, tile: str) -> bool:
        """A plain DataCopy when the length is provably whole 32-byte blocks in every dtype column."""
        if not isinstance(s.n, ir.Const) or s.rows is not None or s.src_stride is not None or \
                s.dst_stride is not None or getattr(s, "pad", None) is not None or getattr(s, "atomic", None):
            return False
        sizes = {DTYPES[tile_dtypes(self.p, c)[tile]].size for c in range(self.p.sig.columns)}
        return s.n.value > 0 and all(s.n.value * size % 32 == 0 for size in sizes)

    def pad_params(self, s: ir.Load, t: str) -> str:
        if s.pad is None:
            return f"DataCopyPadExtParams<{t}>{{false, 0, 0, 0}}"
        self.x.helpers.add("int")
        n = self.x.expr(s.n)
        rpad = f"static_cast<uint8_t>(KwAlignUp({n}, static_cast<int64_t>(32 / sizeof({t}))) - {n})"
        return f"DataCopyPadExtParams<{t}>{{true, 0, {rpad}, static_cast<{t}>({self.x.expr(s.pad)})}}"

    def load(self, s: ir.Load, out: list[str], ind: str, prev, nxt, inline: bool) -> None:
        """A run of adjacent loads into one tile: the run allocates the queue tensor when it holds the
        block's first load of the tile (then EnQue, and DeQue when inline), else it writes into the live
        tensor between V->MTE2 and MTE2->V flags."""
        name = s.dst.name
        first_of_run = not (isinstance(prev, ir.Load) and prev.dst.name == name)
        last_of_run = not (isinstance(nxt, ir.Load) and nxt.dst.name == name)
        if first_of_run:
            self.run_allocates = id(s) in self.roles.first_load
        params, t = self.copy_params(s, s.dst, True)
        if not inline:
            out.append(ind + self.comment(s))
        if first_of_run and self.run_allocates:
            out.append(f"{ind}{safe(name)} = {self.que(name)}.AllocTensor<{t}>();")
        elif first_of_run:
            self.sync("V_MTE2", out, ind)        # the tile is alive: earlier vector reads must finish first
        if self.whole_blocks(s, s.dst.name):
            out.append(f"{ind}DataCopy({self.tile(s.dst)}, {self.gm(s.src, s.offset)}, {self.x.expr(s.n)});")
        else:
            out.append(f"{ind}DataCopyPad({self.tile(s.dst)}, {self.gm(s.src, s.offset)}, {params}, "
                       f"{self.pad_params(s, t)});")
        if last_of_run:
            if self.run_allocates:
                out.append(f"{ind}{self.que(name)}.EnQue({safe(name)});")
                if inline:
                    out.append(f"{ind}{safe(name)} = {self.que(name)}.DeQue<{t}>();")
            else:
                self.sync("MTE2_V", out, ind)

    def store(self, s: ir.Store, out: list[str], ind: str, prev, nxt, inline: bool) -> None:
        name = s.src.name
        first_of_run = not (isinstance(prev, ir.Store) and prev.src.name == name)
        params, t = self.copy_params(s, s.src, False)
        if not inline:
            out.append(ind + self.comment(s))
        if first_of_run:
            if inline:
                out.append(f"{ind}{self.que(name)}.EnQue({safe(name)});")
            out.append(f"{ind}{safe(name)} = {self.que(name)}.DeQue<{t}>();")
        if s.atomic == "add":
            out.append(f"{ind}SetAtomicAdd<{t}>();")
        if self.whole_blocks(s, s.src.name):
            out.append(f"{ind}DataCopy({self.gm(s.dst, s.offset)}, {self.tile(s.src)}, {self.x.expr(s.n)});")
        else:
            out.append(f"{ind}DataCopyPad({self.gm(s.dst, s.offset)}, {self.tile(s.src)}, {params});")
        if s.atomic == "add":
            out.append(f"{ind}SetAtomicNone();")
        if id(s) in self.roles.last_store:
            out.append(f"{ind}{self.que(name)}.FreeTensor({safe(name)});")
            if s.dst in self.roles.gm_loaded:
                self.sync("MTE3_MTE2", out, ind)  # a later load of this tensor must see the store

    def move(self, s: ir.Move, out: list[str], ind: str) -> None:
        """GM -> via (MTE2), then via -> GM (MTE3); the flag after it keeps the next copy into `via` (or a
        load of what this wrote) behind the store."""
        p_in, t = self.copy_params(s.load, s.load.dst, True)
        p_out, _ = self.copy_params(s.store, s.store.src, False)
        out.append(f"{ind}DataCopyPad({self.tile(s.load.dst)}, {self.gm(s.load.src, s.load.offset)}, {p_in}, "
                   f"{self.pad_params(s.load, t)});")
        self.sync("MTE2_MTE3", out, ind)
        out.append(f"{ind}DataCopyPad({self.gm(s.store.dst, s.store.offset)}, {self.tile(s.store.src)}, {p_out});")
        self.sync("MTE3_MTE2", out, ind)

    # ---- vector instructions
    def vec(self, s: ir.VecOp, out: list[str], ind: str) -> None:
        info = ops()[s.op]
        dst, n = self.tile(s.dst), self.x.expr(s.n)
        srcs = [self.tile(r) for r in s.srcs]
        t = self.tt[s.dst.name]
        if info.form == "binary":
            out.append(f"{ind}{s.op}({dst}, {srcs[0]}, {srcs[1]}, {n});")
        elif info.form == "scalar":
            out.append(f"{ind}{s.op}({dst}, {srcs[0]}, static_cast<{t}>({self.x.expr(s.scalar)}), {n});")
        elif info.form == "unary":
            out.append(f"{ind}{s.op}({dst}, {srcs[0]}, {n});")
        elif info.form == "advanced":
            out.append(f"{ind}{s.op}({dst}, {srcs[0]}, kwApiTmpBuf.Get<uint8_t>(), {n});")
        elif info.form == "fill":
            out.append(f"{ind}Duplicate({dst}, static_cast<{t}>({self.x.expr(s.scalar)}), {n});")
        elif info.form == "reduce":
            st = self.tt[s.srcs[0].name]
            extra = ", false" if s.op != "ReduceSum" else ""
            out.append(f"{ind}{s.op}({dst}, {srcs[0]}, kwWorkBuf.Get<{st}>(), {n}{extra});")
        else:
            self.cast(s, dst, srcs[0], n, out, ind)

    def cast(self, s: ir.VecOp, dst: str, src: str, n: str, out: list[str], ind: str) -> None:
        pairs = []
        for col in range(self.p.sig.columns):
            tdt = tile_dtypes(self.p, col)
            pairs.append((tdt[s.srcs[0].name], tdt[s.dst.name]))
        copies = [a == b and (s.op == "copy" or s.mode in ("auto", "none")) for a, b in pairs]
        if all(copies):
            self.helpers.add("copy")
            out.append(f"{ind}KwCopy({dst}, {src}, {n});")
            return
        modes = {(auto_mode(a, b) if s.mode == "auto" else s.mode) for (a, b), c in zip(pairs, copies) if not c}
        mode = f"RoundMode::{MODES[sorted(m for m in modes if m)[0]]}" if any(modes) else "RoundMode::CAST_NONE"
        if not any(copies):
            out.append(f"{ind}Cast({dst}, {src}, {mode}, {n});")
        else:
            self.helpers.update({"copy", "cast"})
            out.append(f"{ind}KwCast({dst}, {src}, {mode}, {n});")

    def scalar_call(self, s: ir.ScalarCall, out: list[str], ind: str) -> None:
        target = safe(s.target)
        if s.fn in ("sqrt", "exp", "ln"):
            api = {"sqrt": "Sqrt", "exp": "Exp", "ln": "Ln"}[s.fn]
            out.append(f"{ind}Duplicate(kwScalarBuf.Get<float>(), {self.x.as_float(s.args[0])}, 8);")
            out.append(f"{ind}{api}(kwScalarBuf.Get<float>(), kwScalarBuf.Get<float>(), 8);")
            self.sync("V_S", out, ind)
            out.append(f"{ind}{target} = kwScalarBuf.Get<float>().GetValue(0);")
            return
        st = self.tt[s.src.name]
        src = self.tile(s.src)
        if s.fn == "get" and s.bound is not None:
            kernel_prims.checked_get(self, s, out, ind)
            return
        if s.fn == "get":
            self.sync("V_S", out, ind)
            cast = "float" if self.p.kernel_types.get(s.target) == "scalar" else "int64_t"
            out.append(f"{ind}{target} = static_cast<{cast}>({src}.GetValue({self.x.expr(s.args[0])}));")
            return
        n = self.x.expr(s.args[0])
        if s.fn == "reduce_prod":
            self.sync("V_S", out, ind)
            out.append(f"{ind}{target} = 1.0f;")
            out.append(f"{ind}for (int64_t kwI = 0; kwI < {n}; ++kwI) {{")
            out.append(f"{ind}    {target} *= static_cast<float>({src}.GetValue(kwI));")
            out.append(f"{ind}}}")
            return
        api = {"reduce_sum": "ReduceSum", "reduce_max": "ReduceMax", "reduce_min": "ReduceMin"}[s.fn]
        extra = ", false" if api != "ReduceSum" else ""
        out.append(f"{ind}{api}(kwScalarBuf.Get<{st}>(), {src}, kwWorkBuf.Get<{st}>(), {n}{extra});")
        self.sync("V_S", out, ind)
        out.append(f"{ind}{target} = static_cast<float>(kwScalarBuf.Get<{st}>().GetValue(0));")

    def extern(self, s: ir.Extern, out: list[str], ind: str) -> None:
        self.holes.append(s)
        args = [self.tile(r) if isinstance(r, ir.TileRef) else f"{safe(r)}Gm" for r in s.reads + s.writes]
        args += [self.x.expr(v) for v in s.params.values()]
        out.append(f"{ind}PipeBarrier<PIPE_ALL>();")
        out.append(f"{ind}Hole_{s.name}({', '.join(args)});   // KW-HOLE {s.name}: filled by the lowering pass")
        out.append(f"{ind}PipeBarrier<PIPE_ALL>();")
