"""Generated code is data until it is compiled: DSL text (the docstring, assert messages, comments,
extern specs, the file name) reaches the C++ only inside comments that cannot end or splice their
line, so a lowering with hostile text has exactly the code of the same program with plain text: a
vector program with an extern, and every example program of the cube, convolution, index and
resize families (A.cube, A.matmul, A.gather, A.scatter, A.where, checked index reads).
Seeded random strings over an alphabet of newlines, backslashes, quotes, `*/`, trigraphs, NUL,
escape sequences and Unicode line separators; names must be ASCII."""
import ast
import random
from pathlib import Path

import pytest

from kernelwright.tools.cpp_text import comment_text, include_path
from kernelwright.tools.dsl.errors import DslError
from kernelwright.tools.dsl.examples import by_family
from kernelwright.tools.dsl.lower import lower
from kernelwright.tools.dsl.parse_program import parse_program
from tests.dsl.cpp_scan import code_lines

TEMPLATE = '''{doc}
import adsl as A


@A.tiling
def tiling(x, hw):
    assert x.numel > 0, {msg}
    nb = max(1, min(hw.vector_cores, A.ceil_div(x.numel, 512)))  # {comment}
    return A.Tiling(block_dim=nb, total=x.numel, tile=512)


@A.kernel(inputs={{"x": (A.f32,)}}, outputs={{"y": "x"}})
def square(x, y, t):
    xin = A.ub(x.dtype, t.tile)
    yout = A.ub(y.dtype, t.tile)
    lo, hi = A.block_span(t.total, 8)  # {comment}
    for off, n in A.tiles(lo, hi, t.tile, stages=2):
        A.load(xin, x[off:], n)
        A.extern("square_tile", {spec}, reads=[xin], writes=[yout], numpy="square", n=n)
        A.store(y[off:], yout, n)  # {comment}
'''

CUBE_INDEX_FAMILIES = ("matmul", "convolution", "index", "resize")


def example_template(path: Path) -> str:
    """An example program as a template: its docstring is the {doc} slot and every other non-blank
    line ends in a `# {comment}` (lines inside brackets too), so hostile text sits beside every cube
    and index statement the lowering quotes."""
    src = path.read_text(encoding="utf-8")
    doc_end = ast.parse(src).body[0].end_lineno
    body = src.replace("{", "{{").replace("}", "}}").splitlines()[doc_end:]
    return "\n".join(["{doc}"] + [line + "  # {comment}" if line.strip() else line for line in body]) + "\n"


TEMPLATES = {"vector": (TEMPLATE, "square.dsl.py")} | {
    e.name: (example_template(e.program_path()), Path(e.program).name)
    for family in CUBE_INDEX_FAMILIES for e in by_family()[family]}

HOSTILE = ["\n", "\r", "\r\n", "\\", "\\ ", '"', "'", "*/", "/*", "//", "??/", "?", "\x00", "\x1b[2J", "\x1b]0;x\x07",
           "\x0b", "\x0c", "\u2028", "\u2029", "\u202e", "\x85", "#include <cstdlib>", "std::system(\"id\");", "}", "{",
           "a", " ", "é", "\t"]
# A Python comment ends at \n or \r and cannot hold NUL; everything else may be in it.
COMMENT_SAFE = [h for h in HOSTILE if not set(h) & {"\n", "\r", "\x00"}]


def lowered(doc="plain", msg="plain", comment="plain", spec="plain", filename=None, kind="vector") -> dict[str, str]:
    template, default_name = TEMPLATES[kind]
    src = template.format(doc=repr(doc), msg=repr(msg), comment=comment, spec=repr(spec))
    return lower(parse_program(src, filename or default_name)).files


BASELINES: dict[str, dict[str, list[str]]] = {}


def baseline(kind="vector") -> dict[str, list[str]]:
    if kind not in BASELINES:
        BASELINES[kind] = {k: code_lines(v) for k, v in lowered(kind=kind).items()}
    return BASELINES[kind]


def hostile_text(rng: random.Random, alphabet: list[str]) -> str:
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 8)))


@pytest.mark.parametrize("kind,seed", [("vector", s) for s in range(40)]
                         + [(k, s) for k in TEMPLATES if k != "vector" for s in range(3)])
def test_hostile_text_changes_no_code(kind, seed):
    rng = random.Random(seed)
    slots = {"doc": hostile_text(rng, HOSTILE), "msg": hostile_text(rng, HOSTILE),
             "comment": hostile_text(rng, COMMENT_SAFE), "spec": hostile_text(rng, HOSTILE),
             "filename": hostile_text(rng, [h for h in HOSTILE if "\x00" not in h]) + ".dsl.py"}
    files = lowered(**slots, kind=kind)
    assert files.keys() == baseline(kind).keys()
    for name, text in files.items():
        assert text.isascii(), (name, slots)
        assert code_lines(text) == baseline(kind)[name], (name, slots)


@pytest.mark.parametrize("slot,payload", [
    ("msg", 'x\n    std::system("id > /tmp/kw-pwned");\n//'),
    ("filename", 'a.dsl.py\nint evil = std::system("id");\n'),
    ("comment", "trailing backslash swallows the next statement \\"),
    ("comment", "trigraph splice ??/"),
    ("doc", "*/ int evil; /*\r#define return exit(0);"),
])
def test_known_injections_stay_in_their_comment(slot, payload):
    files = lowered(**{slot: payload})
    for name, text in files.items():
        assert code_lines(text) == baseline()[name]
        assert not any("std::system" in line for line in code_lines(text))


@pytest.mark.parametrize("name", ["caf\u00e9", "x\u0660", "\u03b1"])
def test_non_ascii_names_are_refused_with_the_line(name):
    src = TEMPLATE.format(doc="'d'", msg="'m'", comment="c", spec="'s'").replace("    nb = max(", f"    {name} = 1\n    nb = max(")
    with pytest.raises(DslError) as info:
        parse_program(src, "n.dsl.py")
    assert info.value.diag.rule == "names.ascii" and info.value.diag.line == 8


def test_extern_names_must_be_ascii():
    src = TEMPLATE.format(doc="'d'", msg="'m'", comment="c", spec="'s'").replace('"square_tile"', '"sq\u00e9"')
    with pytest.raises(DslError, match="ASCII identifier"):
        parse_program(src, "n.dsl.py")


def test_comment_text_never_leaves_a_backslash_before_a_line_end():
    for ch in map(chr, range(0x110000)[:0x3000]):
        text = comment_text("a" + ch + "\\")
        assert text.isascii() and text.isprintable() and not text.endswith("\\") and "??" not in text
        assert all(text[i + 1] in "xuU" for i, c in enumerate(text) if c == "\\")


@pytest.mark.parametrize("path", ['a"b.h', "a\nb.h", "a\\b.h", "a??/b.h", "caf\u00e9.h"])
def test_include_paths_that_cannot_be_spelled_are_refused(path):
    with pytest.raises(ValueError, match="cannot be #included"):
        include_path(path)
    assert include_path("/tmp/build dir/op_kernel/x.h") == "/tmp/build dir/op_kernel/x.h"
