"""The emulation's kernel corpus (tests/sim/corpus/{good,bad}/<name>/): real AscendC projects
with a `spec.py` each. Good kernels give cases and a NumPy reference; broken ones give the
stage, status, category or rule, file:line and message their failure must carry.

A spec defines DESCRIPTION, `cases(rng) -> list[Case]`, and either `reference(case) -> dict`
(+ optional TOLERANCE: {dtype or output name: (rtol, atol)}) or EXPECT (see `Expect`)."""
from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Literal

import numpy as np

from kernelwright.tools.project import KernelProject
from kernelwright.tools.toolchain import ArgSpec, BuildResult, Case, OutputSpec, RunResult

ROOT = Path(__file__).resolve().parents[2] / "tests" / "sim" / "corpus"
# (rtol, atol) per output dtype: one or two units in the last place after a few roundings.
DEFAULT_TOLERANCE: dict[str, tuple[float, float]] = {
    "float32": (1e-5, 1e-5), "float16": (2e-3, 2e-3), "bfloat16": (1.6e-2, 1.6e-2), "float64": (1e-12, 1e-12)}


@dataclass(frozen=True)
class Expect:
    stage: Literal["build", "run", "host"]
    status: str                     # BuildResult.status or RunResult.status
    file: str
    line: int
    message_contains: str
    category: str | None = None     # compile errors: the taxonomy category
    rule: str | None = None         # run-time findings: the rule id


@dataclass
class Entry:
    name: str
    kind: Literal["good", "bad"]
    path: Path
    spec: ModuleType

    @property
    def description(self) -> str:
        return getattr(self.spec, "DESCRIPTION", "")

    @property
    def expect(self) -> Expect | None:
        raw = getattr(self.spec, "EXPECT", None)
        return Expect(**raw) if raw else None

    def project(self) -> KernelProject:
        return KernelProject.from_path(self.path)

    def cases(self, seed: int = 0) -> list[Case]:
        fn = getattr(self.spec, "cases", None)
        return list(fn(np.random.default_rng(seed))) if fn else []

    def reference(self, case: Case) -> dict[str, np.ndarray]:
        return self.spec.reference(case)

    def tolerance(self, output: str, dtype: np.dtype) -> tuple[float, float]:
        own = getattr(self.spec, "TOLERANCE", {})
        return own.get(output) or own.get(dtype.name) or DEFAULT_TOLERANCE.get(dtype.name, (0.0, 0.0))

    def mismatches(self, case: Case, outputs: dict[str, np.ndarray]) -> list[str]:
        """What differs between a run's outputs and the reference (empty when they agree)."""
        problems = []
        for name, want in self.reference(case).items():
            got = outputs.get(name)
            if got is None:
                problems.append(f"{name}: missing from the outputs")
                continue
            if got.shape != want.shape:
                problems.append(f"{name}: shape {got.shape}, expected {want.shape}")
                continue
            rtol, atol = self.tolerance(name, got.dtype)
            g, w = got.astype(np.float64), np.asarray(want).astype(np.float64)
            bad = ~np.isclose(g, w, rtol=rtol, atol=atol, equal_nan=True)
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                problems.append(f"{name}: {int(bad.sum())} of {bad.size} elements differ (first at flat index {i}: "
                                f"got {g.flat[i]!r}, expected {w.flat[i]!r}; rtol={rtol}, atol={atol})")
        return problems

    def violations(self, build: BuildResult, run: RunResult | None) -> list[str]:
        """How a broken kernel's results differ from its EXPECT (empty when they match)."""
        e = self.expect
        if e is None:
            return ["the spec has no EXPECT"]
        result = build if e.stage == "build" else run
        if result is None:
            return [f"no {e.stage} result"]
        out = [] if result.status == e.status else [f"status {result.status!r}, expected {e.status!r}"]
        found = [d for d in result.diagnostics if d.severity == "error"
                 and (e.category is None or d.category == e.category) and (e.rule is None or d.rule == e.rule)
                 and e.message_contains in d.message]
        hit = [d for d in found if d.file == e.file and d.line == e.line]
        if not hit:
            seen = "; ".join(f"{d.location()} [{d.rule or d.category}] {d.message[:120]}" for d in result.diagnostics[:6])
            out.append(f"no error [{e.rule or e.category}] containing {e.message_contains!r} at {e.file}:{e.line}; got: {seen}")
        return out


def load_spec(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"kw_corpus_{path.parent.parent.name}_{path.parent.name}", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load(root: Path | None = None, kind: str | None = None) -> list[Entry]:
    root = root or ROOT
    entries = []
    for k in ("good", "bad"):
        if kind and k != kind:
            continue
        for d in sorted(p for p in (root / k).glob("*") if (p / "spec.py").exists()):
            entries.append(Entry(d.name, k, d, load_spec(d / "spec.py")))  # type: ignore[arg-type]
    return entries


# ---- helpers for specs ----

def launch(block_dim: int, args: list[Any], inputs: dict[str, np.ndarray], outputs: dict[str, tuple[tuple[int, ...], str]],
           **kw: Any) -> Case:
    """A kernel-launch case: `args` lists the kernel's parameters in order, tensor names as str,
    scalars as int/float; `outputs` maps names to (shape, numpy dtype name)."""
    specs = []
    for a in args:
        if isinstance(a, str):
            specs.append(ArgSpec(kind="tensor", name=a))
        elif isinstance(a, ArgSpec):
            specs.append(a)
        elif isinstance(a, (bool, int, np.integer)):
            specs.append(ArgSpec(kind="int", value=int(a)))
        else:
            specs.append(ArgSpec(kind="float", value=float(a)))
    outs = {n: OutputSpec(shape=tuple(s), dtype=d) for n, (s, d) in outputs.items()}
    return Case(inputs=inputs, outputs=outs, block_dim=block_dim, args=specs, **kw)

