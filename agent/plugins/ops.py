"""The four plugin operations over the one core: `generate_kernel` (kernelwright.generate),
`verify_kernel` (kernelwright.verify), `lower_dsl` (the agent's DSL door, agent.dslkit) and
`search_docs` (the Retriever). Typed in, typed out; bad input raises ValueError with a message for
whoever called. Parameters after `*` are injected by the host (paths, configuration, a model
object) and never shown to a calling model."""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from kernelwright.agent.plugins.schemas import (GenerateInput, GenerateOutput, LowerInput, LowerOutput, PassageOut,
                                                SearchInput, SearchOutput, StageLine, VerifyInput, VerifyOutput)

Progress = Callable[[float, str], None]       # (steps done, what happened)
MAX_TEXT = 20000


def _clip(text: str) -> str:
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + f"\n... ({len(text) - MAX_TEXT} more characters)"


def _config(config: Any, overrides: dict[str, Any]):
    from kernelwright.agent.config import Config, load_config, merge, validated
    if isinstance(config, Config):
        return validated(merge(config.model_dump(), overrides))
    return load_config(config, overrides=overrides)


def generate_kernel(inp: GenerateInput, *, out: str | Path | None = None, runs: str | Path | None = None,
                    config: Any = None, model: Any = None, progress: Progress | None = None) -> GenerateOutput:
    """Plan, write and check the DSL, lower to AscendC, verify and repair: one task end to end."""
    from kernelwright.agent.api import generate
    from kernelwright.agent.events import describe

    cfg = _config(config, {"models.default.name": inp.model, "toolchain.backend": inp.backend,
                           "toolchain.tolerance": inp.tolerance, "agent.max_steps": inp.max_steps,
                           "paths.runs": str(runs) if runs else None})
    steps = 0

    def on_event(mode: str, chunk: Any) -> None:
        nonlocal steps
        line = describe(mode, chunk)
        if mode == "updates":
            steps += 1
        if line and progress:
            progress(float(steps), line)

    result = generate(inp.task, model=model, config=cfg, out=out, on_event=on_event)
    kernel = Path(result.kernel).resolve() if result.kernel else None     # absolute: the caller's cwd is not ours
    dsl = kernel / "kernel.dsl.py" if kernel else None
    sources = sorted(kernel.glob("op_kernel/*.cpp")) or sorted(kernel.glob("*.cpp")) if kernel else []
    return GenerateOutput(run_id=result.run_id, status=result.status, ok=result.ok, reason=result.reason,
                          artifacts=str(Path(result.artifacts).resolve()), kernel_dir=str(kernel) if kernel else None,
                          verdict=result.verdict, path=result.path, usage=result.usage,
                          dsl=dsl.read_text(encoding="utf-8") if dsl and dsl.is_file() else None,
                          kernel_source=_clip(sources[0].read_text(encoding="utf-8")) if sources else None)


def verify_kernel(inp: VerifyInput, *, toolchain: Any = None) -> VerifyOutput:
    """Referee a kernel project against a task's PyTorch reference."""
    from kernelwright.agent.api_verify import verify
    from kernelwright.agent.nodes.verify import brief

    v = verify(inp.project, inp.task, backend=inp.backend, tolerance=inp.tolerance, launch=inp.launch,
               trials=inp.trials, toolchain=toolchain)
    b = brief(v, 1, "")
    return VerifyOutput(status=b.status, ok=v.ok, summary=v.summary, failing_stage=b.stage, details=b.details,
                        stages=[StageLine(name=s.name, status=s.status, summary=s.summary) for s in v.stages],
                        backend=v.backend, tolerance=v.tolerance)


def lower_dsl(inp: LowerInput, *, out: str | Path | None = None) -> LowerOutput:
    """Check a DSL program (static rules; against the task's reference when one is given) and lower it
    to an AscendC msopgen project."""
    from kernelwright.agent import dslkit
    from kernelwright.tools.dsl.errors import DslError

    task = None
    if inp.task:
        from kernelwright.tools.tasks import load_task
        from kernelwright.tools.tasks.reference import ReferenceWorker
        task = load_task(inp.task)
        if inp.name:
            task = task.model_copy(update={"op_type": inp.name})
        with ReferenceWorker(task) as worker:
            check = dslkit.check(inp.dsl, task, worker)
        if not check.ok:
            return LowerOutput(ok=False, stage=check.stage, summary=check.summary, diagnostics=check.diagnostics)
        lowered = dslkit.lower(inp.dsl, task)
    else:
        from kernelwright.tools.dsl.check import check_static
        from kernelwright.tools.dsl.lower import LowerError, lower
        try:
            program = dslkit.parse(inp.dsl)
        except DslError as e:
            return LowerOutput(ok=False, stage="parse", summary=f"the program does not parse: {e.diag.message}",
                               diagnostics=[e.diag.render(inp.dsl)])
        report = check_static(program)
        if not report.ok:
            diags = [d.render(inp.dsl) for d in report.errors()]
            return LowerOutput(ok=False, stage="rules", summary=f"{len(diags)} static rule(s) broken", diagnostics=diags)
        try:
            project = lower(program, inp.name)
            lowered = (project, [])
        except LowerError as e:
            lowered = str(e)
    if isinstance(lowered, str):
        return LowerOutput(ok=False, stage="lower", summary=f"the generator could not lower the program: {lowered}")
    project, _ = lowered
    holes = [h["name"] for h in project.meta.get("holes", [])]
    where = project.write(out) if out else None
    return LowerOutput(ok=True, stage="pass", summary=f"lowered to {project.name}: {len(project.files)} file(s)"
                       + (f", {len(holes)} hole(s) to fill" if holes else "") + (" (checked against the task)" if task else
                                                                                 " (static rules only: no task given)"),
                       project_dir=str(Path(where).resolve()) if where else None, holes=holes,
                       files={k: _clip(v) for k, v in sorted(project.files.items())})


def fresh_dir(parent: Path, name: str) -> Path:
    """A directory of its own for one call (calls with the same name never overwrite each other)."""
    import time
    import uuid
    return parent / f"{name}-{time.strftime('%Y%m%d-%H%M%S')}-{uuid.uuid4().hex[:6]}"


def retrieval_switch(config: Any) -> bool | None:
    """The config's retriever.enabled (None: not set). A config that cannot be read raises here, at start."""
    return _config(config, {}).retriever.enabled if config is not None else None


_RETRIEVER: Any = None


def search_docs(inp: SearchInput, *, retriever: Any = None, enabled: bool | None = None) -> SearchOutput:
    """Search the offline AscendC knowledge base: exact API lookup first, then semantic + keyword search."""
    global _RETRIEVER
    if retriever is None and enabled is False:
        raise ValueError("search_docs: retrieval is switched off by the server's config (retriever.enabled: false); "
                         "start `kernelwright mcp` with a config that enables it")
    if retriever is None:
        if _RETRIEVER is None:           # one per process: the index and the embedding model load once
            from kernelwright.knowledge.retriever import open_retriever
            _RETRIEVER = open_retriever(True)
        retriever = _RETRIEVER
    passages = retriever.search(inp.query, k=inp.k, kinds=inp.kinds, soc=inp.soc)
    return SearchOutput(passages=[PassageOut(doc_id=p.doc_id, kind=p.kind, title=p.title, cite=p.cite(), match=p.match,
                                             score=p.score, text=p.text) for p in passages])
