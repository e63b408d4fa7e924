"""The writer's DSL reference is generated from the checker's tables: every `A.<name>` the parsers accept
(table keys, and names spelled out in the parser code) and every registered extern semantics is documented."""
import re
from pathlib import Path

from kernelwright.tools.dsl import parse_expr, parse_kernel
from kernelwright.tools.dsl.dtypes import DTYPES
from kernelwright.tools.dsl.externs import EXTERNS
from kernelwright.tools.dsl.optable import ops
from kernelwright.tools.dsl.primitives import prims
from kernelwright.tools.dsl.reference_card import reference_card

DSL_DIR = Path(parse_kernel.__file__).parent


def accepted_names() -> set[str]:
    names = set(prims()) | set(ops()) | set(parse_kernel.SCALAR_FNS) | set(DTYPES) | {"inf"}
    names |= {n for n in (*parse_expr.HELPERS, *parse_expr.HOST_ONLY, *parse_expr.KERNEL_ONLY) if n != "len"}
    for f in DSL_DIR.glob("parse_*.py"):      # names the parser code matches by hand ("A.range", "A.block_span", ...)
        text = f.read_text()
        names |= set(re.findall(r'"A\.([A-Za-z_]\w*)"', text)) | set(re.findall(r'prim == "(\w+)"', text))
    return names


def test_every_name_the_checker_accepts_is_documented():
    card = reference_card()
    missing = sorted(n for n in accepted_names() if not re.search(rf"A\.{n}\b", card))
    assert not missing, f"accepted by the checker but not in the writer's reference: {missing}"
    assert {"range", "tiles", "block_span", "extern", "Tiling", "kernel", "shapes", "tiling"} <= accepted_names()


def test_every_extern_semantics_is_documented_with_its_arguments():
    card = reference_card()
    for name in EXTERNS:
        line = next(ln for ln in card.splitlines() if f'numpy="{name}"' in ln)
        assert "n=" in line and "writes[0]" in line, line


def test_instruction_dtypes_follow_the_table():
    card = reference_card()
    div = next(ln for ln in card.splitlines() if "A.Div(" in ln)
    assert div.endswith("[" + " ".join(ops()["Div"].accepted()) + "]")


def test_the_card_is_compact():
    assert len(reference_card()) < 10_000     # the hand-written corpus page is ~22 KB
