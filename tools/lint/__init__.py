"""The AscendC API linter: catches invented APIs, wrong argument counts, CANN-9-only calls and
wrong dtype names before the compiler does, using the catalog built from the API cards."""
from kernelwright.tools.lint.diagnostics import LintDiagnostic
from kernelwright.tools.lint.linter import CANN_VERSIONS, SOURCE_SUFFIXES, lint_file, lint_source

__all__ = ["CANN_VERSIONS", "LintDiagnostic", "SOURCE_SUFFIXES", "lint_file", "lint_source"]
