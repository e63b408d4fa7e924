"""The four plugin operations as LangChain `StructuredTool`s (langchain-core only; imported only here).

    from kernelwright.agent.plugins.langchain_tools import kernelwright_tools
    tools = kernelwright_tools(runs="runs")           # generate_kernel, verify_kernel, lower_dsl, search_docs
    llm.bind_tools(tools)                             # or create_agent(model, tools)

A calling model sees each operation's input fields; `out` (where files are written) is an injected
argument the host supplies in the tool call and never appears in the model-facing schema. Since a
tool call's arguments can still carry it, `out` is only ever a directory inside the host's `runs`
root (default: the working directory): an absolute path, `..` or a symlink leading elsewhere is
refused. Results are `content_and_artifact`: the model reads compact JSON, the host gets the typed result as the
ToolMessage's artifact. Steps of a long run are sent as custom callback events
(`kernelwright_progress`) to any callback handler listening."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

from langchain_core.tools import InjectedToolArg, StructuredTool, ToolException
from pydantic import BaseModel, Field

from kernelwright.agent.plugins import ops
from kernelwright.agent.plugins.schemas import GenerateInput, LowerInput, SearchInput, VerifyInput
from kernelwright.tools.contained_paths import inside


class GenerateArgs(GenerateInput):
    out: Annotated[str | None, InjectedToolArg] = Field(None, description="artifact directory of the run (host)")


class LowerArgs(LowerInput):
    out: Annotated[str | None, InjectedToolArg] = Field(None, description="directory to write the project (host)")


def _progress(step: float, message: str) -> None:
    from langchain_core.callbacks import dispatch_custom_event
    try:
        dispatch_custom_event("kernelwright_progress", {"step": step, "message": message})
    except RuntimeError:               # invoked outside a runnable context: nobody to tell
        pass


def _result(call: Any) -> tuple[str, BaseModel]:
    """Run an operation; bad input (a ValueError, or an OSError on a path it named) becomes a
    ToolException, which the calling model reads, instead of an exception in the host."""
    try:
        out = call()
    except (ValueError, OSError) as e:
        raise ToolException(str(e)) from e
    return json.dumps(out.model_dump(mode="json"), ensure_ascii=False), out


def _contained(out: str | None, root: Path) -> str | None:
    """The host-only `out`, kept inside the tools' root whoever filled it in."""
    if out is None:
        return None
    if not inside(Path(out), root):
        raise ToolException(f"out {out!r}: these tools write only inside {root}; give a directory in it")
    return out


def _invalid(e: Exception) -> str:
    return f"invalid arguments: {e}"


def kernelwright_tools(*, runs: str | Path | None = None, config: Any = None, model: Any = None,
                       retriever: Any = None) -> list[StructuredTool]:
    """generate_kernel, verify_kernel, lower_dsl and search_docs. `runs`, `config` (Config or file),
    `model` (a ChatModel for every node) and `retriever` are the host's, fixed for all calls."""

    root = Path(runs) if runs is not None else Path.cwd()

    def generate_kernel(out: str | None = None, **args: Any) -> tuple[str, BaseModel]:
        return _result(lambda: ops.generate_kernel(GenerateInput(**args), out=_contained(out, root), runs=runs,
                                                   config=config, model=model, progress=_progress))

    def verify_kernel(**args: Any) -> tuple[str, BaseModel]:
        return _result(lambda: ops.verify_kernel(VerifyInput(**args)))

    def lower_dsl(out: str | None = None, **args: Any) -> tuple[str, BaseModel]:
        return _result(lambda: ops.lower_dsl(LowerInput(**args), out=_contained(out, root)))

    def search_docs(**args: Any) -> tuple[str, BaseModel]:
        return _result(lambda: ops.search_docs(SearchInput(**args), retriever=retriever))

    specs = [(generate_kernel, GenerateArgs, ops.generate_kernel), (verify_kernel, VerifyInput, ops.verify_kernel),
             (lower_dsl, LowerArgs, ops.lower_dsl), (search_docs, SearchInput, ops.search_docs)]
    return [StructuredTool.from_function(func=fn, name=fn.__name__, description=(doc.__doc__ or "").strip(),
                                         args_schema=schema, response_format="content_and_artifact",
                                         handle_tool_error=True, handle_validation_error=_invalid)
            for fn, schema, doc in specs]
