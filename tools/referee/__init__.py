"""The referee: verify(task, project, toolchain) -> Verdict, stricter than every public harness."""
from kernelwright.tools.referee.tolerance import PRESETS, Tolerance, get_tolerance
from kernelwright.tools.referee.verdict import CaseRun, Mismatch, StageReport, Verdict
from kernelwright.tools.referee.verify import verify

__all__ = ["PRESETS", "CaseRun", "Mismatch", "StageReport", "Tolerance", "Verdict", "get_tolerance", "verify"]
