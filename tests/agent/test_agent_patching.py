"""AscendC patches in SEARCH/REPLACE blocks: applied exactly, or refused with the nearest real lines."""
import pytest

from kernelwright.agent.patching import PatchError, apply_edits

FILES = {"op_kernel/k.cpp": "void f() {\n    Adds(y, x, 1.0f, n);\n    Muls(y, y, 2.0f, n);\n}\n"}


def test_edits_apply_in_order():
    text = ("op_kernel/k.cpp\n<<<<<<< SEARCH\n    Adds(y, x, 1.0f, n);\n=======\n    Adds(y, x, 2.0f, n);\n>>>>>>> REPLACE\n"
            "<<<<<<< SEARCH\n    Muls(y, y, 2.0f, n);\n=======\n    Muls(y, y, 3.0f, n);\n>>>>>>> REPLACE\n")
    out = apply_edits(FILES, text, "op_kernel/k.cpp")
    assert "Adds(y, x, 2.0f, n);" in out["op_kernel/k.cpp"] and "Muls(y, y, 3.0f, n);" in out["op_kernel/k.cpp"]


def test_an_edit_that_does_not_match_shows_the_nearest_lines():
    text = ("<<<<<<< SEARCH\n    Adds(y, x, 1.0f, n);\n=======\n    Adds(y, x, 2.0f, n);\n>>>>>>> REPLACE\n"
            "<<<<<<< SEARCH\n    Muls(y, y, 2.0, n);\n=======\n    Muls(y, y, 3.0f, n);\n>>>>>>> REPLACE\n")
    with pytest.raises(PatchError, match=r"(?s)edit 2: the SEARCH text occurs 0 times.*Muls\(y, y, 2.0f, n\);"
                                         r".*Edits 1-1 matched, but nothing was applied: send every edit again"):
        apply_edits(FILES, text, "op_kernel/k.cpp")
    assert "Adds(y, x, 1.0f, n);" in FILES["op_kernel/k.cpp"]          # all or nothing: edit 1 is not kept
    with pytest.raises(PatchError, match="no file op_kernel/other.cpp"):
        apply_edits(FILES, "op_kernel/other.cpp\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n", "op_kernel/k.cpp")
    with pytest.raises(PatchError, match="expected one or more edits"):
        apply_edits(FILES, "replace Adds by Subs", "op_kernel/k.cpp")
