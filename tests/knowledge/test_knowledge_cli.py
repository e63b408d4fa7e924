"""`kernelwright docs` and `kernelwright lint`: exit codes, output, and lazy imports."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kernelwright.agent.cli import main

DATA = Path(__file__).resolve().parent / "data"
HEAVY = ("chromadb", "sentence_transformers", "torch", "transformers")


def test_knowledge_lint_and_help_do_not_import_heavy_libraries():
    code = f"""
import sys
import kernelwright.knowledge
from kernelwright.knowledge.catalog import load_catalog
from kernelwright.tools.lint import lint_source
from kernelwright.agent.cli import main
for argv in (["--help"], ["docs", "--help"], ["lint", "--help"]):
    try:
        main(argv)
    except SystemExit:
        pass
assert lint_source("void f() {{ AscendC::Softmax(y, x, n); }}")
assert load_catalog().get("Adds") is not None
print([m for m in {HEAVY!r} if m in sys.modules])
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_lint_exit_codes_and_json(capsys):
    assert main(["lint", str(DATA / "add_kernel_launch.cpp"), str(DATA / "softmax_rows.cpp")]) == 0
    assert "0 finding(s) in 2 file(s)" in capsys.readouterr().out
    assert main(["lint", "--json", str(DATA / "bad_kernel.cpp")]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["cann"] == "8.x" and {d["rule"] for d in report["diagnostics"]} >= {"unknown-api", "arity", "dtype-name"}
    assert main(["lint", str(DATA / "missing.cpp")]) == 2
    assert "no such file or folder" in capsys.readouterr().err
    assert main(["lint", __file__]) == 2
    assert "not an AscendC source" in capsys.readouterr().err
    with pytest.raises(SystemExit) as bad_option:
        main(["lint", "--cann", "7.x", str(DATA / "bad_kernel.cpp")])
    assert bad_option.value.code == 2


def test_docs_add_list_remove(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("KERNELWRIGHT_HOME", str(tmp_path / "home"))
    notes = tmp_path / "notes.md"
    notes.write_text("# Notes\n\n## Tiling\n\nOur tiles are 4096 elements.\n")
    assert main(["docs", "add", str(notes)]) == 0
    assert "added user/notes-" in capsys.readouterr().out
    assert main(["docs", "list", "--json"]) == 0
    listing = json.loads(capsys.readouterr().out)
    assert [d["path"] for d in listing["user_documents"]] == [str(notes)]
    assert listing["builtin_documents"]["api"] >= 80 and listing["index"]["current"] is False
    assert main(["docs", "remove", str(notes)]) == 0
    assert main(["docs", "remove", str(notes)]) == 2
    assert "matches no added document" in capsys.readouterr().err
    assert main(["docs", "add", str(tmp_path / "absent.md")]) == 2
    (tmp_path / "scan.pdf").write_bytes(b"%PDF")
    assert main(["docs", "add", str(tmp_path / "scan.pdf")]) == 2
    assert "unsupported document type '.pdf'" in capsys.readouterr().err


def test_docs_search_exact_symbol_and_bad_input(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("KERNELWRIGHT_HOME", str(tmp_path / "home"))
    assert main(["docs", "search", "--k", "1", "--json", "error: no matching function for call to 'Adds'"]) == 0
    [passage] = json.loads(capsys.readouterr().out)
    assert passage["doc_id"] == "api/Adds" and passage["match"] == "exact"
    assert passage["source"] == "knowledge/corpus/api/Adds.md" and passage["line_start"] > 1
    assert main(["docs", "search", "--soc", "Ascend999", "DataCopy"]) == 2
    assert "unknown SoC 'Ascend999'" in capsys.readouterr().err
    assert main(["docs", "search", "--k", "0", "DataCopy"]) == 2
    with pytest.raises(SystemExit) as bad_kind:
        main(["docs", "search", "--kind", "apis", "DataCopy"])
    assert bad_kind.value.code == 2
