"""Lint AscendC source against the API catalog before it reaches a compiler."""
from __future__ import annotations

from pathlib import Path

from kernelwright.knowledge.catalog import ApiCatalog, load_catalog
from kernelwright.knowledge.models import CANN_VERSIONS
from kernelwright.tools.lint.diagnostics import LintDiagnostic
from kernelwright.tools.lint.rules import Rules
from kernelwright.tools.lint.structure import analyse
from kernelwright.tools.lint.tokens import tokenize

SOURCE_SUFFIXES = (".cpp", ".cc", ".cxx", ".h", ".hh", ".hpp", ".asc", ".inc")


def lint_source(text: str, filename: str = "<source>", cann: str = "8.x",
                catalog: ApiCatalog | None = None) -> list[LintDiagnostic]:
    if cann not in CANN_VERSIONS:
        raise ValueError(f"unknown CANN version '{cann}'; use one of {', '.join(CANN_VERSIONS)}")
    catalog = catalog or load_catalog()
    tokens = tokenize(text)
    structure = analyse(tokens)
    rules = Rules(catalog, filename, cann)
    found = [d for site in structure.sites for d in rules.check_site(site, structure)]
    found += rules.check_dtype_names(tokens.items, structure)
    unique = {(d.rule, d.line, d.col): d for d in found}
    return sorted(unique.values(), key=lambda d: (d.line, d.col, d.rule))


def lint_file(path: Path, cann: str = "8.x") -> list[LintDiagnostic]:
    return lint_source(path.read_text(encoding="utf-8", errors="replace"), str(path), cann)
