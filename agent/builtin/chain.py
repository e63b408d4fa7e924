"""Compile a run of elementwise fx nodes into DSL instructions on fp32 tiles, reusing a tile as soon as
the value in it is dead (fewer tiles, larger tiles)."""
from __future__ import annotations

from typing import Any

from kernelwright.agent.builtin import recipes
from kernelwright.agent.builtin.graphview import Node, OpGraph, ref

MODULES = {"ReLU": "relu", "GELU": "gelu", "Sigmoid": "sigmoid", "Tanh": "tanh", "LeakyReLU": "leaky_relu",
           "ELU": "elu", "SELU": "selu", "CELU": "celu", "Softplus": "softplus", "Hardtanh": "hardtanh",
           "ReLU6": "relu6", "Hardsigmoid": "hardsigmoid", "Hardswish": "hardswish", "SiLU": "silu", "Mish": "mish",
           "Softsign": "softsign", "Tanhshrink": "tanhshrink", "LogSigmoid": "logsigmoid", "Identity": "identity",
           "Dropout": "identity", "Flatten": "flatten"}
FUNCTIONS = {"swish": "silu", "log_sigmoid": "logsigmoid", "pow_": "pow", "maximum": "maximum", "minimum": "minimum", "clip": "clamp",
             "clamp_min": "clamp", "relu_": "relu"}


def fn_name(node: Node) -> str:
    return MODULES.get(node.op) or FUNCTIONS.get(node.op, node.op)


class Unsupported(Exception):
    def __init__(self, ops: list[str], why: str):
        super().__init__(why)
        self.ops, self.why = ops, why


def is_elementwise(g: OpGraph, node: Node) -> bool:
    """An op this compiler handles (operand shapes are checked when compiling)."""
    name = fn_name(node)
    if name in recipes.IDENTITY:
        return node.kind != "get_attr"
    if name in recipes.LOGIC:          # 0/1 arithmetic: right for bool operands only
        return all(g.node(ref(a)).dtype == "bool" for a in node.args if ref(a) and g.node(ref(a)).shape is not None)
    return name in recipes.KNOWN and node.kind != "get_attr"


class ChainCompiler:
    """`broadcast=True`: every tile already holds its value broadcast to the full row (the broadcast
    writer expands its operands on load), so operands of different shapes combine lane by lane."""

    def __init__(self, g: OpGraph, count: str = "n", prefix: str = "w", broadcast: bool = False):
        self.g, self.count, self.prefix, self.broadcast = g, count, prefix, broadcast
        self.lines: list[str] = []
        self.tiles: list[str] = []
        self.free: list[str] = []
        self.tile_of: dict[str, str] = {}
        self.advanced = False
        self._scratch: list[str] = []

    # ---- the Out protocol of recipes
    def emit(self, instr: str, *operands: str) -> None:
        if instr in recipes.ADVANCED:
            assert operands[0] != operands[1], f"recipe bug: {instr} cannot run in place"
            self.advanced = True
        self.lines.append(f"A.{instr}({', '.join(operands)}, {self.count})")

    def tmp(self) -> str:
        t = self.new()
        self._scratch.append(t)
        return t

    # ---- tiles
    def new(self) -> str:
        if self.free:
            return self.free.pop()
        name = f"{self.prefix}{len(self.tiles)}"
        self.tiles.append(name)
        return name

    def scalar(self, v: Any) -> str | None:
        name = ref(v)
        if name is None:
            return recipes.lit(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None
        node = self.g.node(name)
        return f"t.{name}" if node.kind == "placeholder" and node.shape is None else None

    def compile(self, nodes: list[Node], leaves: dict[str, str], keep: set[str]) -> dict[str, str]:
        """Emit `nodes` (in order) given fp32 tiles for `leaves`; `keep` values stay live to the end.
        Returns fx name -> tile for the kept values."""
        alias: dict[str, str] = {}
        for n in nodes:
            if fn_name(n) in recipes.IDENTITY:
                alias[n.name] = alias.get(ref(n.args[0]), ref(n.args[0]))
        real = lambda name: alias.get(name, name)  # noqa: E731
        last: dict[str, int] = {}
        for i, n in enumerate(nodes):
            for a in list(n.args) + list(n.kwargs.values()):
                if ref(a):
                    last[real(ref(a))] = i
        self.tile_of = dict(leaves)
        for i, n in enumerate(nodes):
            if n.name in alias:
                continue
            srcs = [real(ref(a)) for a in n.args if ref(a) and self.g.node(ref(a)).shape is not None]
            dying = [s for s in dict.fromkeys(srcs) if last.get(s) == i and s not in keep and s in self.tile_of]
            in_place = dying and fn_name(n) not in recipes.NOT_IN_PLACE
            d = self.tile_of[dying[0]] if in_place else self.new()
            self._scratch = []
            self._one(n, d, real)
            self.tile_of[n.name] = d
            self.free += self._scratch + [self.tile_of[s] for s in dying[1 if in_place else 0:]]
        return {k: self.tile_of[real(k)] for k in keep}

    def _one(self, n: Node, d: str, real) -> None:
        name = fn_name(n)
        tensors = [(i, a) for i, a in enumerate(n.args) if ref(a) and self.g.node(ref(a)).shape is not None]
        tile = lambda a: self.tile_of[real(ref(a))]  # noqa: E731
        if name in recipes.UNARY and len(tensors) == 1 and not any(ref(v) for v in n.kwargs.values()):
            return recipes.UNARY[name](self, d, tile(tensors[0][1]), n)
        if name == "pow" and len(tensors) == 1 and tensors[0][0] == 0:
            k = n.arg(1, "exponent")
            if isinstance(k, (int, float)) and recipes.power(self, d, tile(n.args[0]), float(k)):
                return None
        if name in recipes.BINARY and len(tensors) == 2:
            a, b = (self.g.node(ref(x)) for _, x in tensors)
            if a.shape != b.shape and not self.broadcast:
                raise Unsupported([n.op], f"{n.op} broadcasts {a.shape} with {b.shape}; the elementwise writer needs "
                                          "operands of one shape")
            alpha = n.kwargs.get("alpha", 1)
            if name in ("add", "sub") and alpha != 1:
                return recipes.scaled_binary(self, recipes.BINARY[name], d, tile(tensors[0][1]), tile(tensors[1][1]),
                                             float(alpha))
            return self.emit(recipes.BINARY[name], d, tile(tensors[0][1]), tile(tensors[1][1]))
        if name in recipes.TERNARY and len(tensors) == 3:
            shapes = {tuple(self.g.node(ref(x)).shape) for _, x in tensors}
            if len(shapes) == 1 or self.broadcast:
                return recipes.addc(self, recipes.TERNARY[name], d, *(tile(x) for _, x in tensors),
                                    float(n.kwargs.get("value", 1)))
        if len(tensors) == 1 and len(n.args) >= 2 and name in recipes.BINARY.keys() | {"rsub", "pow"}:
            pos, t = tensors[0]
            other = n.args[1 - pos] if len(n.args) > 1 else n.arg(1, "other")
            s = self.scalar(other)
            if s is not None and recipes.tensor_scalar(self, name, d, tile(t), s, scalar_first=(pos == 1) != (name == "rsub")):
                return None
        if self.broadcast and self._tensor_operands(n, name, d, real):
            return None
        raise Unsupported([n.op], f"{n.op}({', '.join(map(str, n.args))}) has no elementwise recipe")

    def _tensor_operands(self, n: Node, name: str, d: str, real) -> bool:
        """clamp with tensor bounds, pow with a tensor exponent, where (a 0/1 fp32 condition tile):
        operands of any broadcast shapes, so only where every tile holds full rows (broadcast=True)."""
        def operand(v: Any) -> tuple[str, str] | None:      # (tile or scalar, "t" | "s")
            if ref(v) and self.g.node(ref(v)).shape is not None:
                return self.tile_of[real(ref(v))], "t"
            s = self.scalar(v)
            return (s, "s") if s is not None else None
        if name == "clamp":
            x = operand(n.args[0])
            bounds = [(instr, operand(n.arg(i, key))) for i, key, instr in ((1, "min", "Max"), (2, "max", "Min"))
                      if n.arg(i, key) is not None]
            if x is None or x[1] != "t" or any(b is None for _, b in bounds):
                return False
            src = x[0]
            for instr, (b, kind) in bounds:
                self.emit(instr if kind == "t" else instr + "s", d, src, b)
                src = d
            if not bounds:
                self.emit("Muls", d, src, "1.0")
            return True
        if name == "pow":
            a, k = operand(n.args[0]), operand(n.arg(1, "exponent"))
            if a is None or k is None or a[1] != "t" or k[1] != "t":
                return False
            s = self.tmp()                        # a ** k = exp(k * ln a): for a > 0 (NaN below 0, as a fractional power)
            self.emit("Ln", s, a[0])
            self.emit("Mul", s, s, k[0])
            self.emit("Exp", d, s)
            return True
        if name == "where":
            c, a, b = (operand(v) for v in n.args[:3])
            if c is None or a is None or b is None or c[1] != "t":
                return False
            s, u = self.tmp(), self.tmp()         # c * a + (1 - c) * b: exact for finite a, b
            self.emit("Mul" if a[1] == "t" else "Muls", s, c[0], a[0])
            self.emit("Muls", u, c[0], "-1.0")
            self.emit("Adds", u, u, "1.0")
            self.emit("Mul" if b[1] == "t" else "Muls", u, u, b[0])
            self.emit("Add", d, s, u)
            return True
        return False
