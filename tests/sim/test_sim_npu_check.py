"""CANN's vocabulary: every finding whose fault npu_check also reports carries npu_check's class
(ErrorRead1-4, ErrorWrite1-4, ErrorSync1-4, ErrorLeak, ErrorFree, ErrorBuffer0-4), shown with the rule;
the table names only rules the emulation really reports, and the README documents each one."""
import re
from pathlib import Path

import pytest

from kernelwright.tools.npu_check import documented_rules, npu_check_class
from kernelwright.tools.toolchain import Diagnostic

SIM = Path(__file__).resolve().parents[2] / "tools" / "sim"


@pytest.mark.parametrize("rule, message, symbol, cls", [
    ("ub.out_of_bounds", "DataCopy touches 64 bytes of dst, but that tensor has only 32 bytes", "DataCopy", "ErrorWrite2"),
    ("ub.out_of_bounds", "Add reaches element 70 of src1, which holds only 64 elements", "Add", "ErrorRead3"),
    ("tensor.index", "index 9 is out of range", "SetValue", "ErrorWrite2"),
    ("tensor.index", "index 9 is out of range", "GetValue", "ErrorRead3"),
    ("ub.align", "DataCopy: src starts at UB offset 8", "DataCopy", "ErrorRead4"),
    ("gm.out_of_bounds", "DataCopy writes 64 bytes of global memory (operand dst)", "DataCopy", "ErrorWrite1"),
    ("pipe.hazard.raw", "", None, "ErrorSync2"),
    ("pipe.hazard.war", "", None, "ErrorSync1"),
    ("flag.wait_without_set", "", None, "ErrorSync3"),
    ("queue.leak", "", None, "ErrorLeak"),
    ("queue.double_free", "", None, "ErrorFree"),
    ("tbuf.uninitialised", "", None, "ErrorBuffer0"),
    ("state.stale_local", "", None, "ErrorRead2"),
    ("datacopy.truncate", "", None, None),
    ("gm.race", "", None, None),
])
def test_rules_map_to_npu_check_classes(rule, message, symbol, cls):
    assert npu_check_class(rule, message, symbol) == cls
    d = Diagnostic(stage="run", rule=rule, message=message, symbol=symbol)
    assert d.npu_check == cls
    assert (f"[{rule}, npu_check {cls}]" if cls else f"[{rule}]") in d.render()


def test_the_table_names_rules_the_emulation_reports_and_the_readme_documents_them():
    sources = "\n".join(p.read_text() for p in SIM.rglob("*") if p.suffix in (".h", ".cpp", ".py"))
    readme = (SIM / "README.md").read_text()
    for rule, cls in documented_rules().items():
        stem = rule.rsplit(".", 1)[0] + "." if rule.startswith("pipe.hazard") else rule
        assert f'"{stem}' in sources or f"'{stem}" in sources, f"{rule} is not a rule the emulation reports"
        for name in ([cls] if isinstance(cls, str) else list(cls)):
            assert re.search(rf"`{re.escape(rule)}`[^\n]*{name}", readme), f"README: {rule} -> {name}"
