"""Kernel signatures of a kernel-launch project: each `__global__ __aicore__` kernel's parameters,
classified as GM pointer, scalar (with the struct-pack format the worker packs it with) or
by-value struct. The generated launcher reads its arguments with exactly these types."""
from __future__ import annotations

import re

from pydantic import BaseModel, Field

from kernelwright.tools.cpp_split import split_top_level

_KERNEL = re.compile(
    r"(?P<tmpl>template\s*<[^;{]*?>\s*)?(?:extern\s+\"C\"\s+)?"
    r"(?:__global__\s+(?:__aicore__|__vector__|__cube__|__mix__\s*\([^)]*\))|(?:__aicore__|__vector__|__cube__)\s+__global__)"
    r"\s+void\s+(?P<name>\w+)\s*\(")
# C type -> struct format for scalars a kernel takes by value; `e` is IEEE half.
SCALAR_FORMATS = {
    "bool": "?", "char": "b", "int8_t": "b", "uint8_t": "B", "int16_t": "h", "uint16_t": "H", "int32_t": "i", "int": "i",
    "uint32_t": "I", "unsigned": "I", "unsigned int": "I", "int64_t": "q", "long": "q", "long long": "q",
    "uint64_t": "Q", "unsigned long": "Q", "unsigned long long": "Q", "size_t": "Q", "float": "f", "double": "d",
    "half": "e", "float16_t": "e", "bfloat16_t": "H",
}
_QUALIFIERS = re.compile(r"\b(?:const|volatile|__restrict__|__restrict|restrict|__gm__)\b")


class KernelParam(BaseModel):
    name: str
    ctype: str                                  # as written, qualifiers dropped
    decl: str = ""                              # the type exactly as written (pointer casts keep `__gm__`)
    kind: str                                   # "pointer" | "scalar" | "struct"
    fmt: str | None = None                      # struct-pack format of a scalar


class KernelSignature(BaseModel):
    name: str
    source: str                                 # project-relative file defining it
    params: list[KernelParam] = Field(default_factory=list)
    template: bool = False                      # a template kernel cannot be launched without instantiation

    @property
    def symbol(self) -> str:
        return f"kw_launch_{self.name}"


def _param(text: str, index: int) -> KernelParam:
    text = re.sub(r"\s*=.*$", "", text.strip())               # default arguments
    m = re.match(r"^(?P<type>.*?[\s*&])(?P<name>[A-Za-z_]\w*)\s*(?:\[\s*\w*\s*\])?$", text)
    ctype, name = (m.group("type"), m.group("name")) if m else (text, f"arg{index}")
    array = bool(m and "[" in text[m.end("name"):])
    pointer = "*" in ctype or "GM_ADDR" in ctype or "__gm__" in text or array
    decl = " ".join(ctype.split()) + ("*" if array else "")
    ctype = " ".join(_QUALIFIERS.sub(" ", ctype).replace("&", " ").split())
    if pointer:
        return KernelParam(name=name, ctype=ctype or "GM_ADDR", decl=decl or "GM_ADDR", kind="pointer")
    bare = ctype.removeprefix("std::").removeprefix("AscendC::")
    if bare in SCALAR_FORMATS:
        return KernelParam(name=name, ctype=ctype, decl=decl, kind="scalar", fmt=SCALAR_FORMATS[bare])
    return KernelParam(name=name, ctype=ctype, decl=decl, kind="struct")


def _param_text(text: str, start: int) -> str:
    depth, i = 1, start
    while i < len(text) and depth:
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        i += 1
    return text[start:i - 1]


def strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def kernel_signatures(files: dict[str, str], sources: list[str]) -> list[KernelSignature]:
    """Every kernel defined (or declared) in `sources`, first occurrence wins."""
    found: dict[str, KernelSignature] = {}
    for rel in sources:
        text = strip_comments(files[rel])
        for m in _KERNEL.finditer(text):
            name = m.group("name")
            if name in found:
                continue
            texts = [p for p in split_top_level(_param_text(text, m.end())) if p != "void"]
            params = [_param(p, i) for i, p in enumerate(texts)]
            found[name] = KernelSignature(name=name, source=rel, params=params, template=bool(m.group("tmpl")))
    return list(found.values())
