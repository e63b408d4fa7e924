"""The parser reads DSL source with `ast` and never executes it: code smuggled into any part of a
program is rejected with the line and the construct named, and nothing runs. Error messages point
at the DSL line and never at our own files."""
import pytest

from kernelwright.tools.dsl.errors import DslError
from kernelwright.tools.dsl.parse_program import parse_program

BASE = '''import adsl as A


@A.tiling
def tiling(x, hw):
    nb = max(1, min(hw.vector_cores, A.ceil_div(x.numel, 256)))
    return A.Tiling(block_dim=nb, total=x.numel, tile=256)


@A.kernel(inputs={"x": (A.f32,)}, outputs={"y": "x"})
def scale(x, y, t):
    xin = A.ub(x.dtype, t.tile)
    yout = A.ub(y.dtype, t.tile)
    lo, hi = A.block_span(t.total)
    for off, n in A.tiles(lo, hi, t.tile):
        A.load(xin, x[off:], n)
        A.Muls(yout, xin, 2.0, n)
        A.store(y[off:], yout, n)
'''


def reject(src: str) -> DslError:
    with pytest.raises(DslError) as info:
        parse_program(src, "evil.dsl.py")
    return info.value


def test_base_parses():
    parse_program(BASE, "ok.dsl.py")


PAYLOADS = {
    # (where, replacement of a line of BASE, expected rule, a word the message must contain)
    "import_call_in_tiling": ("    nb = max(1,", "    nb = __import__('os').system('touch {marker}')\n    nb = max(1,",
                              "subset", "__import__"),
    "import_call_in_kernel": ("        A.Muls(yout, xin, 2.0, n)", "        __import__('os').system('touch {marker}')",
                              "subset.call", "__import__"),
    "import_at_top": ("import adsl as A", "import adsl as A\nimport os\nos.system('touch {marker}')",
                      "program.import", "import os"),
    "module_level_call": ("import adsl as A", "import adsl as A\nopen('{marker}', 'w')", "program.structure", "top-level"),
    "dunder_attribute": ("    nb = max(1,", "    nb = x.__class__\n    nb = max(1,", "subset.attribute", "__class__"),
    "dunder_on_A": ("        A.Muls(yout, xin, 2.0, n)", "        A.__dict__['load'](xin, x, n)", "subset",
                    "__dict__"),
    "getattr_trick": ("    nb = max(1,", "    nb = getattr(A, 'load')\n    nb = max(1,", "subset.call", "getattr"),
    "lambda": ("    nb = max(1,", "    nb = (lambda: 0)()\n    nb = max(1,", "subset", "lambda"),
    "eval_in_constant": ("import adsl as A", "import adsl as A\nK = eval('1 + 1')", "subset.constant", "eval"),
    "exec_statement": ("        A.Muls(yout, xin, 2.0, n)", "        exec('import os')", "subset.call", "exec"),
    "fstring": ("    nb = max(1,", "    nb = f'{x}'\n    nb = max(1,", "subset.construct", "f-string"),
    "comprehension": ("    nb = max(1,", "    nb = [i for i in range(3)]\n    nb = max(1,", "subset.construct",
                      "list comprehension"),
    "decorator_payload": ('@A.kernel(inputs={"x": (A.f32,)}, outputs={"y": "x"})',
                          '@A.kernel(inputs={"x": (A.f32,)}, outputs={"y": __import__("os").system("touch {marker}")})',
                          "subset.constant", "not a constant"),
    "while_loop": ("        A.Muls(yout, xin, 2.0, n)", "        while True:\n            pass", "subset.construct",
                   "while loop"),
    "nested_def": ("    xin = A.ub(x.dtype, t.tile)", "    def f():\n        pass\n    xin = A.ub(x.dtype, t.tile)",
                   "subset.construct", "nested function"),
    "class_def": ("import adsl as A", "import adsl as A\nclass Evil:\n    pass", "subset.construct", "class"),
    "try_except": ("        A.Muls(yout, xin, 2.0, n)", "        try:\n            pass\n        except Exception:\n            pass",
                   "subset.construct", "try"),
    "with_open": ("        A.Muls(yout, xin, 2.0, n)", "        with open('{marker}') as f:\n            pass",
                  "subset.construct", "with"),
}


@pytest.mark.parametrize("name", sorted(PAYLOADS))
def test_smuggled_code_is_rejected_and_never_runs(name, tmp_path):
    anchor, replacement, rule, word = PAYLOADS[name]
    marker = tmp_path / "ran"
    src = BASE.replace(anchor, replacement.replace("{marker}", str(marker)), 1)
    assert src != BASE
    err = reject(src)
    assert err.diag.rule.startswith(rule), err.diag.render(src)
    assert word in err.diag.render(src)
    first_new = next(i for i, (a, b) in enumerate(zip(src.splitlines(), BASE.splitlines()), 1) if a != b)
    assert err.diag.line is not None and err.diag.line >= first_new - 1
    assert not marker.exists()


def test_messages_name_the_line_and_never_our_files():
    src = BASE.replace("        A.Muls(yout, xin, 2.0, n)", "        A.Mulz(yout, xin, 2.0, n)")
    err = reject(src)
    text = err.diag.render(src)
    assert err.diag.rule == "subset.call"
    assert "at line 17" in text and "A.Mulz" in text and "17 |         A.Mulz(yout, xin, 2.0, n)" in text
    for internal in ("tools/dsl", "kernelwright", "Traceback", ".py\", line", "parse_kernel"):
        assert internal not in text
    assert str(err) == text.split("\n  ")[0] or "A.Mulz" in str(err)


def test_syntax_errors_and_missing_pieces():
    err = reject(BASE.replace("def scale(x, y, t):", "def scale(x, y, t)"))
    assert err.diag.rule == "syntax" and err.diag.line == 11
    err = reject(BASE.replace("@A.tiling\n", "@A.shapes\n"))
    assert err.diag.rule == "program.structure" and "@A.tiling" in err.diag.message
    err = reject(BASE.replace("def scale(x, y, t):", "def scale(x, t):"))
    assert err.diag.rule == "program.params" and "(x, y, t)" in err.diag.message


def test_types_are_checked_with_lines():
    err = reject(BASE.replace("A.Muls(yout, xin, 2.0, n)", "A.Muls(yout, xin, 2.0, n / 2)"))
    assert err.diag.rule == "type.index" and err.diag.line == 17 and "//" in err.diag.message
    err = reject(BASE.replace("A.Muls(yout, xin, 2.0, n)", "A.Muls(yout, x, 2.0, n)"))
    assert err.diag.rule == "call.operand" and "GM tensor" in err.diag.message
    err = reject(BASE.replace("xin = A.ub(x.dtype, t.tile)", "xin = A.ub(x.dtype, t.tiles)"))
    assert err.diag.rule == "tiling.field" and "total, tile" in err.diag.hint
    err = reject(BASE.replace("    nb = max(1, min(hw.vector_cores, A.ceil_div(x.numel, 256)))",
                              "    nb = x.shape + 1"))
    assert err.diag.rule == "type.mismatch" and err.diag.line == 6
