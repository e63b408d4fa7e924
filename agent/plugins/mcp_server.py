"""`kernelwright mcp`: the four plugin operations as MCP tools over stdio (mcp 2.x `MCPServer`).

Each tool's input schema is its pydantic input model's fields (flat, with descriptions and bounds);
its result is the typed output model (structured content). The work runs in a thread so the server
keeps answering, and every step of a long run is sent as an MCP progress notification. Nothing is
printed to stdout: it is the protocol channel (the stdio transport points fd 1 at stderr while it
serves, so even a child process's stray output stays off the wire)."""
from __future__ import annotations

import inspect
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, Field

from kernelwright.agent.plugins import ops
from kernelwright.agent.plugins.schemas import (GenerateInput, GenerateOutput, LowerInput, LowerOutput, SearchInput,
                                                SearchOutput, VerifyInput, VerifyOutput)

INSTRUCTIONS = ("kernelwright writes AscendC kernels for Huawei Ascend NPUs from a PyTorch reference (a task .py with "
                "Model, get_inputs, get_init_inputs): generate_kernel runs the whole agent (plan, DSL, lowering, "
                "referee, repair); verify_kernel referees an existing kernel project; lower_dsl checks and lowers a DSL "
                "program; search_docs searches the offline AscendC API cards and guides. Paths are on the server's "
                "machine. Without an LLM the builtin writer covers the operator patterns it knows.")


def _signature(model: type[BaseModel], ctx_type: type, returns: type) -> tuple[inspect.Signature, dict[str, Any]]:
    """A keyword-only signature with one parameter per input field (MCPServer derives the schema from it)."""
    params = [inspect.Parameter("ctx", inspect.Parameter.KEYWORD_ONLY, annotation=ctx_type)]
    hints: dict[str, Any] = {"ctx": ctx_type}
    for name, f in model.model_fields.items():
        ann = Annotated[(f.annotation, *f.metadata, Field(description=f.description))]
        default = inspect.Parameter.empty if f.is_required() else f.default
        params.append(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=ann))
        hints[name] = ann
    return inspect.Signature(params, return_annotation=returns), hints | {"return": returns}


def _tool(server: Any, name: str, model: type[BaseModel], returns: type[BaseModel],
          work: Callable[[BaseModel, Callable[[float, str], None]], BaseModel], doc: str) -> None:
    """Register `work(input, progress)` (blocking) as an async tool that reports progress."""
    import anyio
    from mcp.server.mcpserver import Context
    from mcp.server.mcpserver.exceptions import ToolError

    async def tool(ctx: Context, **kwargs: Any) -> Any:
        inp = model.model_validate(kwargs)

        last = [0.0]                   # progress values must only grow

        def progress(step: float, message: str) -> None:
            last[0] = max(step, last[0])
            anyio.from_thread.run(ctx.report_progress, last[0], None, message[:500])

        await ctx.report_progress(0, None, f"{name}: started")
        try:
            out = await anyio.to_thread.run_sync(lambda: work(inp, progress), abandon_on_cancel=True)
        except (ValueError, OSError) as e:   # bad input (TaskError, ProjectError, a path): the caller reads why
            raise ToolError(str(e)) from e
        await ctx.report_progress(last[0] + 1, None, f"{name}: done")
        return out

    tool.__signature__, tool.__annotations__ = _signature(model, Context, returns)  # type: ignore[attr-defined]
    tool.__name__, tool.__doc__ = name, doc
    server.add_tool(tool, name=name, description=doc)


def build_server(*, runs: str | Path | None = None, config: Any = None, model: Any = None) -> Any:
    """The MCP server. `runs`: where generated runs go; `config`: a Config or config file; `model`: a
    ChatModel object for every node (tests and embedding hosts)."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("kernelwright", instructions=INSTRUCTIONS)

    def generate(inp: Any, progress: Callable[[float, str], None]) -> GenerateOutput:
        return ops.generate_kernel(inp, runs=runs, config=config, model=model, progress=progress)

    def verify(inp: Any, progress: Callable[[float, str], None]) -> VerifyOutput:
        return ops.verify_kernel(inp)

    def lower(inp: Any, progress: Callable[[float, str], None]) -> LowerOutput:
        return ops.lower_dsl(inp, out=ops.fresh_dir(Path(runs) / "lowered", inp.name or "project") if runs else None)

    def search(inp: Any, progress: Callable[[float, str], None]) -> SearchOutput:
        return ops.search_docs(inp, enabled=ops.retrieval_switch(config))

    _tool(server, "generate_kernel", GenerateInput, GenerateOutput, generate, ops.generate_kernel.__doc__ or "")
    _tool(server, "verify_kernel", VerifyInput, VerifyOutput, verify, ops.verify_kernel.__doc__ or "")
    _tool(server, "lower_dsl", LowerInput, LowerOutput, lower, ops.lower_dsl.__doc__ or "")
    _tool(server, "search_docs", SearchInput, SearchOutput, search, ops.search_docs.__doc__ or "")
    return server


def _client_gone(e: BaseException) -> bool:
    """Whether `e` (or every exception in its group) says the client closed its end of the pipes."""
    import anyio
    if isinstance(e, BaseExceptionGroup):
        return all(_client_gone(x) for x in e.exceptions)
    return isinstance(e, (BrokenPipeError, ConnectionResetError, anyio.BrokenResourceError,
                          anyio.ClosedResourceError))


def serve(**kwargs: Any) -> None:
    """Serve until the client goes away (stdin closes). Work still running then is abandoned: its
    thread is not waited for (anyio's worker threads would hold the process open, and its CPU, for
    as long as the work takes), so the process ends with the session."""
    code = 0
    try:
        build_server(**kwargs).run("stdio")
    except BaseException as e:          # a write to a client that is gone, an interrupt, or our bug
        if not _client_gone(e):
            import traceback
            traceback.print_exc()
            code = 1
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(code)

