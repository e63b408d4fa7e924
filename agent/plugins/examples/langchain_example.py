"""kernelwright's LangChain tools in the smallest tool-calling loop.

    python -m kernelwright.agent.plugins.examples.langchain_example [TASK.py]

A scripted chat model stands in for an LLM here (no network): it looks up an API card, asks for a
kernel, lowers the DSL program it got back, referees the kernel project, then answers. With a real
model, pass `ChatOpenAI(...).bind_tools(tools)` (or any chat model with tool calling) as `llm`;
nothing else changes. The host adds the injected `out` argument to each call; the model never sees
it."""
from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from typing import Any

from kernelwright.agent.plugins.langchain_tools import kernelwright_tools

DEFAULT_TASK = Path(__file__).resolve().parents[3] / "evals" / "suite" / "activation" / "relu_ragged.py"
INJECTED = {"generate_kernel", "lower_dsl"}      # tools that take the host's `out` directory


def tool_loop(llm: Any, tools: list, question: str, out_dir: str | Path, max_turns: int = 8,
              config: Any = None) -> list:
    """Ask, run the tools the model calls, feed the results back, until it answers without a call.
    `config` (callbacks, tags) goes to every tool call: generate_kernel sends its steps to callback
    handlers as `kernelwright_progress` custom events."""
    from langchain_core.messages import HumanMessage
    by_name = {t.name: t for t in tools}
    messages: list = [HumanMessage(question)]
    for _ in range(max_turns):
        reply = llm.invoke(messages)
        messages.append(reply)
        if not reply.tool_calls:
            break
        for call in reply.tool_calls:
            if call["name"] not in by_name:
                from langchain_core.messages import ToolMessage
                messages.append(ToolMessage(f"no tool named {call['name']!r}; tools: {', '.join(by_name)}",
                                            tool_call_id=call["id"], status="error"))
                continue
            args = dict(call["args"])
            if call["name"] in INJECTED:
                args["out"] = str(Path(out_dir) / call["id"])
            messages.append(by_name[call["name"]].invoke({**call, "args": args, "type": "tool_call"}, config=config))
    return messages


def _last_result(messages: list, tool: str) -> dict[str, Any]:
    for m in reversed(messages):
        if getattr(m, "type", "") == "tool" and m.name == tool and m.status != "error":
            return json.loads(m.content)
    return {}


def scripted_llm(task: str | Path) -> Any:
    """What an LLM with these tools might do, replayed: each turn reads the results so far."""
    from langchain_core.messages import AIMessage
    from langchain_core.runnables import RunnableLambda
    task = str(task)

    def call(tool: str, n: int, **args: Any) -> AIMessage:
        return AIMessage("", tool_calls=[{"name": tool, "args": args, "id": f"call{n}_{tool}"}])

    def turn(messages: list) -> AIMessage:
        n = sum(1 for m in messages if getattr(m, "type", "") == "ai")
        generated = _last_result(messages, "generate_kernel")
        if n == 0:
            return call("search_docs", n, query="AscendC::Relu", k=1)
        if n == 1:
            return call("generate_kernel", n, task=task, model="builtin")
        if n == 2 and generated.get("dsl"):
            return call("lower_dsl", n, dsl=generated["dsl"], name="ReluAgain")    # static rules only: no task
        if n == 3 and generated.get("kernel_dir"):
            return call("verify_kernel", n, project=generated["kernel_dir"], task=task)
        verdict = _last_result(messages, "verify_kernel")
        return AIMessage(f"generate_kernel: {generated.get('status', 'no result')}; "
                         f"verify_kernel: {verdict.get('status', 'not run')} ({verdict.get('summary', '')})")
    return RunnableLambda(turn)


def main(argv: list[str] | None = None) -> list:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("task", nargs="?", default=str(DEFAULT_TASK))
    p.add_argument("--out", default=None, help="where the tools write (default: a temporary directory)")
    args = p.parse_args(argv)
    out = Path(args.out or tempfile.mkdtemp(prefix="kw-langchain-")).resolve()   # `out` args are inside it
    messages = tool_loop(scripted_llm(args.task), kernelwright_tools(runs=out), f"Write a kernel for {args.task}", out)
    for m in messages:
        text = m.content if isinstance(m.content, str) else str(m.content)
        calls = [f"{c['name']}({', '.join(sorted(c['args']))})" for c in getattr(m, "tool_calls", []) or []]
        print(f"[{m.type}] {text[:300]}" + (f" calls {', '.join(calls)}" if calls else ""))
    return messages


if __name__ == "__main__":
    main()
