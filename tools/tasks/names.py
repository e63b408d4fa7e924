"""Valid operator names for any task name. Benchmarks name tasks `19_ReLU`, `10_relu` or
`conv-transpose 3d`; msopgen needs a CamelCase op type that starts with a letter and derives the
kernel entry from it in snake_case (MultiKernelBench issue #38: digit-leading names broke the build)."""
from __future__ import annotations

import re

from kernelwright.tools.project import camel_case, snake_case

# snake_case kernel names that would collide with C++ keywords or alternative tokens (`And` -> `and`), or with
# the namespace of the Matmul API (`matmul`, declared by lib/matmul_intf.h).
_CPP_RESERVED = {
    "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break", "case", "catch", "char", "class", "compl",
    "const", "continue", "default", "delete", "do", "double", "else", "enum", "explicit", "export", "extern", "false",
    "float", "for", "friend", "goto", "if", "inline", "int", "long", "mutable", "namespace", "new", "not", "not_eq",
    "operator", "or", "or_eq", "private", "protected", "public", "register", "return", "short", "signed", "sizeof",
    "static", "struct", "switch", "template", "this", "throw", "true", "try", "typedef", "typename", "union",
    "unsigned", "using", "virtual", "void", "volatile", "while", "xor", "xor_eq", "main", "matmul",
}


def op_names(raw: str) -> tuple[str, str]:
    """(op_type, kernel_name) for a task name: `10_relu` -> (`Op10Relu`, `op10_relu`)."""
    op_type = camel_case(re.sub(r"[^0-9A-Za-z_]+", "_", raw))
    if not op_type:
        op_type = "Op"
    elif op_type[0].isdigit():
        op_type = "Op" + op_type
    kernel = snake_case(op_type)
    if kernel in _CPP_RESERVED:
        op_type += "Op"
        kernel = snake_case(op_type)
    return op_type, kernel
