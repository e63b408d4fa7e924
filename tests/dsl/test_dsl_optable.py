"""The DSL's instruction table (tools/dsl/data/ops.json) says what the API cards (knowledge) and the
emulation's dtype checks (sim headers) say: one fact, three places, kept in agreement here."""
import re
from pathlib import Path

from kernelwright.tools.dsl.dtypes import DTYPES
from kernelwright.tools.dsl.optable import cast_modes, cast_pairs, ops

SIM = Path(__file__).resolve().parents[2] / "tools" / "sim" / "include" / "kw"
CTYPE = {d.ctype: d.name for d in DTYPES.values() if d.name != "bool"}   # bool data is handled as uint8_t


def test_dtypes_agree_with_the_api_cards():
    from kernelwright.knowledge.catalog import load_catalog
    catalog = load_catalog()
    for name, info in ops().items():
        card = catalog.get(name)
        if card is None or name == "Cast":
            continue
        documented = {CTYPE[t] for t in card.dtypes.get("dav-c220", []) if t in CTYPE}
        assert set(info.accepted()) == documented, name
    cast = catalog.get("Cast")
    for pair in cast.dtypes["dav-c220"]:
        src, dst = pair.split("->")
        if src in CTYPE and dst in CTYPE:
            assert cast_modes(CTYPE[src], CTYPE[dst]) is not None, pair


def test_dtypes_agree_with_the_emulation():
    text = (SIM / "vec_elementwise.h").read_text()
    found = 0
    for m in re.finditer(r"KW_(?:BINARY|SCALAR|UNARY)_OP\((\w+),.*?\"[^\"]*\",\s*([\w, ]+)\)", text):
        name, types = m.group(1), [t.strip() for t in m.group(2).split(",")]
        if name in ops():
            found += 1
            assert set(ops()[name].accepted()) == {CTYPE[t] for t in types if t in CTYPE}, name
    assert found >= 15
    math = (SIM / "highlevel" / "math.h").read_text()
    for name in ("Tanh", "Sigmoid", "Erf"):
        assert re.search(rf"KW_HL_UNARY4\({name},", math) and set(ops()[name].accepted()) == {"f16", "f32"}


def test_every_cast_pair_names_known_dtypes_and_modes():
    for pair in cast_pairs():
        src, dst = pair.split(">")
        assert src in DTYPES and dst in DTYPES
        assert set(cast_modes(src, dst)) <= {"none", "rint", "floor", "ceil", "round", "trunc", "odd"}
    assert cast_modes("f32", "bf16") and "none" not in cast_modes("f32", "bf16")
    assert cast_modes("f16", "bf16") is None
