"""Every task name becomes a valid msopgen operator type and kernel name (MultiKernelBench #38)."""
import re

import pytest

from kernelwright.tools.tasks.names import op_names


@pytest.mark.parametrize("raw,op_type,kernel", [
    ("10_relu", "Op10Relu", "op10_relu"),
    ("19_ReLU", "Op19ReLU", "op19_re_lu"),
    ("AbsMath", "AbsMath", "abs_math"),
    ("conv-transpose 3d", "ConvTranspose3d", "conv_transpose3d"),
    ("Matmul_add", "MatmulAdd", "matmul_add"),
    ("And", "AndOp", "and_op"),           # `and` is a C++ alternative token
    ("int", "IntOp", "int_op"),
    ("__", "Op", "op"),
])
def test_op_names(raw, op_type, kernel):
    assert op_names(raw) == (op_type, kernel)


@pytest.mark.parametrize("raw", ["1", "9lives", "a.b/c", "ünïcode op", "x" * 3, "3d_conv(stride=2)"])
def test_names_are_always_valid_identifiers(raw):
    op_type, kernel = op_names(raw)
    assert re.fullmatch(r"[A-Z][A-Za-z0-9]*", op_type)
    assert re.fullmatch(r"[a-z][a-z0-9_]*", kernel)
