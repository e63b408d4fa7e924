"""Elementwise ops as DSL vector instructions on fp32 tiles. A recipe writes `d` from its operands;
`d` may be the tile of an operand that dies at this op, so every recipe reads its operands (into
scratch) before it writes `d`. New activations are one entry here."""
from __future__ import annotations

import math
from typing import Any, Callable, Protocol

SELU_ALPHA = 1.6732632423543772
SELU_SCALE = 1.0507009873554805


class Out(Protocol):
    def emit(self, instr: str, *operands: str) -> None: ...
    def tmp(self) -> str: ...


def lit(v: float) -> str:
    return repr(float(v))


def softplus_into(o: Out, d: str, a: str) -> None:
    """d = log(1 + exp(a)) as max(a, 0) + log(1 + exp(-|a|)): no overflow, exact for large a."""
    s = o.tmp()
    o.emit("Abs", s, a)
    o.emit("Muls", s, s, "-1.0")
    o.emit("Exp", s, s)
    o.emit("Adds", s, s, "1.0")
    o.emit("Ln", s, s)
    o.emit("Relu", d, a)
    o.emit("Add", d, d, s)


def elu_into(o: Out, d: str, a: str, alpha: float, inner: float = 1.0) -> None:
    """d = max(a, 0) + alpha * (exp(min(a, 0) * inner) - 1)."""
    s = o.tmp()
    o.emit("Mins", s, a, "0.0")
    if inner != 1.0:
        o.emit("Muls", s, s, lit(inner))
    o.emit("Exp", s, s)
    o.emit("Adds", s, s, "-1.0")
    o.emit("Muls", s, s, lit(alpha))
    o.emit("Relu", d, a)
    o.emit("Add", d, d, s)


def hardsigmoid_into(o: Out, d: str, a: str) -> None:
    o.emit("Muls", d, a, lit(1 / 6))
    o.emit("Adds", d, d, "0.5")
    o.emit("Maxs", d, d, "0.0")
    o.emit("Mins", d, d, "1.0")


def gelu(o: Out, d: str, a: str, node: Any) -> None:
    s, u = o.tmp(), o.tmp()
    if node.arg(1, "approximate", "none") == "tanh":
        o.emit("Mul", s, a, a)
        o.emit("Muls", s, s, "0.044715")
        o.emit("Adds", s, s, "1.0")
        o.emit("Mul", s, s, a)
        o.emit("Muls", s, s, lit(math.sqrt(2 / math.pi)))
        o.emit("Tanh", u, s)
    else:
        o.emit("Muls", s, a, lit(1 / math.sqrt(2)))
        o.emit("Erf", u, s)
    o.emit("Adds", u, u, "1.0")
    o.emit("Mul", d, a, u)
    o.emit("Muls", d, d, "0.5")


def softplus(o: Out, d: str, a: str, node: Any) -> None:
    beta = float(node.arg(1, "beta", 1.0))
    if beta == 1.0:
        return softplus_into(o, d, a)
    s = o.tmp()
    o.emit("Muls", s, a, lit(beta))
    softplus_into(o, d, s)
    o.emit("Muls", d, d, lit(1 / beta))


def clamp(o: Out, d: str, a: str, lo: Any, hi: Any) -> None:
    src = a
    for instr, bound in (("Maxs", lo), ("Mins", hi)):
        if bound is not None:
            o.emit(instr, d, src, lit(bound))
            src = d
    if lo is None and hi is None:
        o.emit("Muls", d, a, "1.0")


def with_tmp(fn: Callable[[Out, str, str, str], None]) -> Callable[[Out, str, str, Any], None]:
    return lambda o, d, a, node: fn(o, d, a, o.tmp())


def _mul_by(o: Out, d: str, a: str, make: Callable[[Out, str, str], None]) -> None:
    s = o.tmp()
    make(o, s, a)
    o.emit("Mul", d, a, s)


def mish(o: Out, d: str, a: str, node: Any) -> None:
    s, u = o.tmp(), o.tmp()
    softplus_into(o, s, a)
    o.emit("Tanh", u, s)
    o.emit("Mul", d, a, u)


UNARY: dict[str, Callable[[Out, str, str, Any], None]] = {
    "relu": lambda o, d, a, n: o.emit("Relu", d, a),
    "abs": lambda o, d, a, n: o.emit("Abs", d, a),
    "exp": lambda o, d, a, n: o.emit("Exp", d, a),
    "log": lambda o, d, a, n: o.emit("Ln", d, a),
    "sqrt": lambda o, d, a, n: o.emit("Sqrt", d, a),
    "rsqrt": lambda o, d, a, n: o.emit("Rsqrt", d, a),
    "reciprocal": lambda o, d, a, n: o.emit("Reciprocal", d, a),
    "neg": lambda o, d, a, n: o.emit("Muls", d, a, "-1.0"),
    "square": lambda o, d, a, n: o.emit("Mul", d, a, a),
    "sigmoid": lambda o, d, a, n: o.emit("Sigmoid", d, a),
    "tanh": lambda o, d, a, n: o.emit("Tanh", d, a),
    "erf": lambda o, d, a, n: o.emit("Erf", d, a),
    "gelu": gelu,
    "silu": lambda o, d, a, n: _mul_by(o, d, a, lambda o2, s, x: o2.emit("Sigmoid", s, x)),
    "leaky_relu": lambda o, d, a, n: o.emit("LeakyRelu", d, a, lit(n.arg(1, "negative_slope", 0.01))),
    "softplus": softplus,
    "elu": lambda o, d, a, n: elu_into(o, d, a, float(n.arg(1, "alpha", 1.0))),
    "celu": lambda o, d, a, n: elu_into(o, d, a, float(n.arg(1, "alpha", 1.0)), 1 / float(n.arg(1, "alpha", 1.0))),
    "selu": lambda o, d, a, n: (elu_into(o, d, a, SELU_ALPHA), o.emit("Muls", d, d, lit(SELU_SCALE))),
    "hardtanh": lambda o, d, a, n: clamp(o, d, a, n.arg(1, "min_val", -1.0), n.arg(2, "max_val", 1.0)),
    "relu6": lambda o, d, a, n: clamp(o, d, a, 0.0, 6.0),
    "clamp": lambda o, d, a, n: clamp(o, d, a, n.arg(1, "min"), n.arg(2, "max")),
    "hardsigmoid": lambda o, d, a, n: hardsigmoid_into(o, d, a),
    "hardswish": lambda o, d, a, n: _mul_by(o, d, a, hardsigmoid_into),
    "mish": mish,
    "softsign": with_tmp(lambda o, d, a, s: (o.emit("Abs", s, a), o.emit("Adds", s, s, "1.0"), o.emit("Div", d, a, s))),
    "tanhshrink": with_tmp(lambda o, d, a, s: (o.emit("Tanh", s, a), o.emit("Sub", d, a, s))),
    "logical_not": lambda o, d, a, n: (o.emit("Muls", d, a, "-1.0"), o.emit("Adds", d, d, "1.0")),   # on 0/1 tiles
    "logsigmoid": with_tmp(lambda o, d, a, s: (o.emit("Muls", s, a, "-1.0"), softplus_into(o, d, s),
                                               o.emit("Muls", d, d, "-1.0"))),
}

# two tiles of the same shape
BINARY = {"add": "Add", "sub": "Sub", "mul": "Mul", "div": "Div", "maximum": "Max", "minimum": "Min", "max": "Max",
          "min": "Min", "fmax": "Max", "fmin": "Min", "logical_and": "Mul", "logical_or": "Max"}
LOGIC = {"logical_and", "logical_or", "logical_not"}      # on bool values held as 0/1 fp32 tiles (the plan checks)


def scaled_binary(o: Out, instr: str, d: str, a: str, b: str, alpha: float) -> None:
    """d = a (+|-) alpha * b (torch.add/sub with alpha=)."""
    s = o.tmp()
    o.emit("Muls", s, b, lit(alpha))
    o.emit(instr, d, a, s)


def addc(o: Out, instr: str, d: str, a: str, b: str, c: str, value: float) -> None:
    """d = a + value * (b * c) or a + value * (b / c) (addcmul / addcdiv)."""
    s = o.tmp()
    o.emit(instr, s, b, c)
    if value != 1.0:
        o.emit("Muls", s, s, lit(value))
    o.emit("Add", d, a, s)


def tensor_scalar(o: Out, op: str, d: str, a: str, s: str, scalar_first: bool) -> bool:
    """d = a op s (or s op a); False when the combination has no recipe."""
    if op == "add":
        o.emit("Adds", d, a, s)
    elif op == "mul":
        o.emit("Muls", d, a, s)
    elif op == "sub" and not scalar_first:
        o.emit("Adds", d, a, f"-({s})" if s.startswith("t.") else lit(-float(s)))
    elif op in ("sub", "rsub"):                      # s - a
        o.emit("Muls", d, a, "-1.0")
        o.emit("Adds", d, d, s)
    elif op == "div" and not scalar_first:
        o.emit("Muls", d, a, f"1.0 / {s}" if s.startswith("t.") else lit(1 / float(s)))
    elif op == "div":                                 # s / a
        o.emit("Reciprocal", d, a)
        o.emit("Muls", d, d, s)
    elif op in ("maximum", "max", "fmax"):
        o.emit("Maxs", d, a, s)
    elif op in ("minimum", "min", "fmin"):
        o.emit("Mins", d, a, s)
    elif op == "pow" and not scalar_first and not s.startswith("t."):
        return power(o, d, a, float(s))
    else:
        return False
    return True


def power(o: Out, d: str, a: str, k: float) -> bool:
    if k == 2:
        o.emit("Mul", d, a, a)
    elif k == 3:
        s = o.tmp()
        o.emit("Mul", s, a, a)
        o.emit("Mul", d, s, a)
    elif k == 0.5:
        o.emit("Sqrt", d, a)
    elif k == -0.5:
        o.emit("Rsqrt", d, a)
    elif k == -1:
        o.emit("Reciprocal", d, a)
    elif k == 1:
        o.emit("Muls", d, a, "1.0")
    else:
        return False
    return True


ADVANCED = {"Sigmoid", "Tanh", "Erf"}          # advanced APIs: never in place (dst != src)
NOT_IN_PLACE = {"sigmoid", "tanh", "erf"}     # recipes that are one advanced instruction d <- a
IDENTITY = {"contiguous", "clone", "view", "reshape", "flatten", "squeeze", "unsqueeze", "float", "to", "type_as",
            "identity", "detach", "expand_as"}
TERNARY = {"addcmul": "Mul", "addcdiv": "Div"}
KNOWN = set(UNARY) | set(BINARY) | set(TERNARY) | {"pow", "rsub"} | IDENTITY
