"""Run one build step of the real toolchain (cmake, build.sh, an installer, a syntax check) in the
sandbox and turn its output into diagnostics: compiler messages through the shared clang/gcc parser
(buildkit.diagnostics; bisheng is clang-based), CMake errors as environment findings with a hint."""
from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from pathlib import Path

from kernelwright.tools.buildkit import sandbox
from kernelwright.tools.buildkit.diagnostics import PathMapper, parse
from kernelwright.tools.toolchain import BuildResult, Diagnostic

BUILD_LIMITS = sandbox.Limits(wall_s=1200, cpu_s=None, memory_bytes=None, file_bytes=4 << 30)
CONFIGURE_LIMITS = sandbox.Limits(wall_s=300, cpu_s=None, memory_bytes=None, file_bytes=1 << 30)
# said in every verdict of the real backends (issue 13; SECURITY.md says why they are not sandboxed)
UNCONTAINED = ("CANN steps are not sandboxed: its builds, op_host code and the NPU worker run with limits, a kill of "
               "their process group and a scrubbed environment (no credentials), but see your files and network")
_CMAKE_ERROR = re.compile(r"^CMake Error(?: at (?P<where>[^:\n]+:\d+))?.*?:?\s*$", re.M)


class CannPathMapper(PathMapper):
    """Project files by their relative path; CANN's headers as `<CANN>/...` (also through the links a
    CANN 8 `latest/` directory is made of: `latest/compiler -> ../8.1.RC1/compiler`); our generated
    files as `<build>/...`."""

    include_label = "<CANN>"

    def __init__(self, src_root: Path, cann_root: Path, build_root: Path):
        super().__init__(src_root, cann_root)
        self.build_root = str(build_root.resolve()) + "/"
        self.cann_links = [(str(p.resolve()) + "/", f"<CANN>/{p.name}/") for p in _children(cann_root) if p.is_symlink()]

    def display(self, path: str) -> str:
        shown = super().display(path)
        if shown != path or path.startswith("<"):
            return shown
        resolved = str(Path(path).resolve())
        if resolved.startswith(self.build_root):
            return "<build>/" + resolved[len(self.build_root):]
        return next((label + resolved[len(target):] for target, label in self.cann_links if resolved.startswith(target)),
                    shown)


def _children(d: Path) -> list[Path]:
    try:
        return sorted(d.iterdir())
    except OSError:
        return []


@dataclass
class Steps:
    """The steps of one build: their combined log and what they found."""

    mapper: CannPathMapper
    env: dict[str, str]
    log: list[str] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    environment_failed: bool = False
    timed_out: bool = False          # a step ran out of time (load, or a stuck tool): no verdict to cache

    def _record(self, cmd: list[str], r: sandbox.Completed) -> str:
        text = (r.stdout + r.stderr).strip()
        self.log.append(f"$ {' '.join(cmd)}\n{text}" if text else f"$ {' '.join(cmd)}")
        return text

    def run(self, cmd: list[str], cwd: Path, *, what: str, limits: sandbox.Limits | None = None,
            environment: bool = False, hint: str | None = None) -> bool:
        """Run `cmd` (within BUILD_LIMITS unless told); on failure record diagnostics. `environment`: a
        failure here is the machine's (configure, install), not the kernel's."""
        limits = limits or BUILD_LIMITS
        r = sandbox.run(cmd, cwd=cwd, limits=limits, env=self.env)
        text = self._record(cmd, r)
        if r.timed_out:
            self.timed_out = True
            self.fail(f"{what} did not finish within {limits.wall_s:.0f} s (not cached: the next build tries again)",
                      environment=environment,
                      hint="a very large kernel or a stuck tool; the log has its last output")
            return False
        found = parse(text, self.mapper)
        self.diagnostics += [d for d in found if d.severity == "warning" and d.file is not None][:20]
        errors = [d for d in found if d.severity == "error"]
        if r.returncode == 0:
            return True
        if not errors or environment:      # no compiler message about the code: the tools or the machine failed
            self.fail(f"{what} failed (exit {r.returncode}): {_summary(text)}", environment=True, hint=hint)
        self.diagnostics += errors
        return False

    def fail(self, message: str, *, environment: bool, hint: str | None = None, category: str = "other") -> None:
        self.environment_failed = self.environment_failed or environment
        self.diagnostics.append(Diagnostic(stage="build", category=category, message=message, hint=hint))  # type: ignore[arg-type]


def _summary(text: str) -> str:
    """The CMake errors of `text` (with where they were raised), else its last lines."""
    lines = text.splitlines()
    picked: list[str] = []
    for i, line in enumerate(lines):
        if _CMAKE_ERROR.match(line) or line.startswith(("[ERROR]", "ERROR:", "error:")):
            picked.append(" ".join(x.strip() for x in [line, *lines[i + 1:i + 3]] if x.strip()))
    return ("; ".join(picked) or " | ".join(lines[-6:]) or "no output")[-1500:]


class StagedBuild:
    """What the kernel-launch and the msopgen builds share: a scratch directory `out` that becomes the
    cache entry `final`, and the steps run so far."""

    out: Path
    final: Path
    steps: Steps

    def final_path(self, p: Path) -> str:
        return str(self.final / p.relative_to(self.out))

    def finish(self, result: BuildResult, start: float) -> BuildResult:
        result.diagnostics = self.steps.diagnostics
        if self.steps.environment_failed:
            result.status = "environment_error"
        elif any(d.severity == "error" for d in result.diagnostics):
            result.status = "compile_error"
        result.log = "\n".join(self.steps.log).replace(str(self.out), str(self.final))[-20000:]
        result.seconds = time.monotonic() - start
        return result
