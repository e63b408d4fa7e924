"""LangChain tools and the graph as a subgraph: the four StructuredTools' schemas and errors, the
documented examples in agent/README.md run exactly as written (a scripted tool-calling model calls all
four tools; a parent LangGraph graph with the agent as its node), and the subgraph example module
with a replayed model that needs a repair."""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from frontdoor_env import ABS, NO_RETRIEVAL, RELU, ROOT, TRANSCRIPTS  # noqa: E402

DOC = ROOT / "agent" / "README.md"
TOOLS = ["generate_kernel", "verify_kernel", "lower_dsl", "search_docs"]


def doc_example(name: str) -> str:
    """The fenced Python block after `<!-- example: NAME -->` in agent/README.md."""
    m = re.search(rf"<!-- example: {name} -->\s*```python\n(.*?)```", DOC.read_text(), re.S)
    assert m, f"{DOC}: no `<!-- example: {name} -->` followed by a ```python block"
    return m.group(1)


def run_doc_example(name: str, cwd: Path, monkeypatch, capsys) -> tuple[dict, str]:
    """Exec the block as written, from a directory that looks like the repository root (evals/)."""
    (cwd / "evals").symlink_to(ROOT / "evals")
    monkeypatch.chdir(cwd)
    namespace: dict = {"__name__": f"doc_example_{name}"}
    exec(compile(doc_example(name), f"{DOC}:{name}", "exec"), namespace)
    return namespace, capsys.readouterr().out


@pytest.fixture(scope="module")
def tools(tmp_path_factory):
    from kernelwright.agent.plugins.langchain_tools import kernelwright_tools
    return {t.name: t for t in kernelwright_tools(runs=tmp_path_factory.mktemp("lc_runs"))}


def test_four_structured_tools_with_schemas(tools):
    from langchain_core.tools import StructuredTool
    assert sorted(tools) == sorted(TOOLS)
    assert all(isinstance(t, StructuredTool) and t.response_format == "content_and_artifact" for t in tools.values())
    model_facing = {n: t.tool_call_schema.model_json_schema() for n, t in tools.items()}
    assert set(model_facing["generate_kernel"]["properties"]) == {"task", "model", "backend", "tolerance", "max_steps"}
    assert model_facing["generate_kernel"]["required"] == ["task"]
    assert set(model_facing["verify_kernel"]["required"]) == {"project", "task"}
    assert set(model_facing["lower_dsl"]["properties"]) == {"dsl", "task", "name"}
    assert model_facing["search_docs"]["properties"]["k"]["maximum"] == 20
    # `out` is the host's (injected): in the args schema, never shown to the model
    assert "out" in tools["generate_kernel"].args_schema.model_fields and "out" in tools["lower_dsl"].args_schema.model_fields
    assert all("out" not in s["properties"] for s in model_facing.values())
    assert all(t.description and "description" in s["properties"][next(iter(s["properties"]))]
               for t, s in zip(tools.values(), model_facing.values()))


def test_tool_errors_come_back_to_the_model(tools):
    bad = tools["verify_kernel"].invoke({"name": "verify_kernel", "id": "e1", "type": "tool_call",
                                         "args": {"project": "/nowhere/kernel", "task": str(RELU)}})
    assert bad.status == "error" and "/nowhere/kernel" in bad.content
    invalid = tools["search_docs"].invoke({"name": "search_docs", "id": "e2", "type": "tool_call",
                                           "args": {"query": "Relu", "k": 50}})
    assert invalid.status == "error" and invalid.content.startswith("invalid arguments:") and "20" in invalid.content


def test_lower_dsl_tool_without_a_task(tmp_path):
    dsl = (TRANSCRIPTS / "replies" / "relu_ragged.md").read_text().split("```python\n", 1)[1].split("```", 1)[0]
    from kernelwright.agent.plugins.langchain_tools import kernelwright_tools
    tools = {t.name: t for t in kernelwright_tools(runs=tmp_path)}
    msg = tools["lower_dsl"].invoke({"name": "lower_dsl", "id": "l1", "type": "tool_call",
                                     "args": {"dsl": dsl, "out": str(tmp_path / "p")}})
    assert msg.status != "error" and msg.artifact.ok and msg.artifact.project_dir == str((tmp_path / "p").resolve())
    assert json.loads(msg.content)["stage"] == "pass" and (tmp_path / "p" / "op_kernel").is_dir()


def test_generate_tool_reports_progress_to_callbacks(tmp_path):
    """Each step of a long run reaches the host's callback handlers as a `kernelwright_progress` event."""
    from langchain_core.callbacks import BaseCallbackHandler

    class Steps(BaseCallbackHandler):
        def __init__(self):
            self.events = []

        def on_custom_event(self, name, data, **kwargs):
            self.events.append((name, data))

    handler = Steps()
    from kernelwright.agent.plugins.langchain_tools import kernelwright_tools
    tools = {t.name: t for t in kernelwright_tools(runs=tmp_path)}
    msg = tools["generate_kernel"].invoke({"name": "generate_kernel", "id": "g1", "type": "tool_call",
                                           "args": {"task": str(RELU), "model": "builtin",
                                                    "out": str(tmp_path / "run")}}, config={"callbacks": [handler]})
    assert msg.status != "error" and msg.artifact.ok, msg.content[:500]
    assert {name for name, _ in handler.events} == {"kernelwright_progress"}
    steps = [d["step"] for _, d in handler.events]
    messages = [d["message"] for _, d in handler.events]
    assert steps == sorted(steps) and any(m.startswith("verify: pass") for m in messages), messages


def test_documented_langchain_example_calls_all_four_tools(tmp_path, monkeypatch, capsys):
    from kernelwright.agent.plugins.schemas import GenerateOutput, LowerOutput, SearchOutput, VerifyOutput
    ns, printed = run_doc_example("langchain", tmp_path, monkeypatch, capsys)
    messages = ns["messages"]
    results = {m.name: m for m in messages if m.type == "tool"}
    assert list(results) == ["search_docs", "generate_kernel", "lower_dsl", "verify_kernel"], \
        [(m.type, m.content[:200]) for m in messages]
    assert all(m.status != "error" for m in results.values()), [m.content[:300] for m in results.values()]
    types = {"search_docs": SearchOutput, "generate_kernel": GenerateOutput, "lower_dsl": LowerOutput,
             "verify_kernel": VerifyOutput}
    assert all(isinstance(results[n].artifact, t) for n, t in types.items())
    assert results["search_docs"].artifact.passages[0].doc_id == "api/Relu"
    gen = results["generate_kernel"].artifact
    assert gen.ok and gen.status == "passed" and Path(gen.artifacts).parent == tmp_path.resolve() / "runs", \
        "paths in results are absolute (the calling host does not share our cwd)"
    assert results["lower_dsl"].artifact.ok and results["lower_dsl"].artifact.stage == "pass"
    assert results["verify_kernel"].artifact.ok and results["verify_kernel"].artifact.status == "pass"
    assert messages[-1].type == "ai" and not messages[-1].tool_calls
    assert messages[-1].content.startswith("generate_kernel: passed; verify_kernel: pass (")
    assert printed.strip() == messages[-1].content


def test_documented_subgraph_example_runs_in_a_parent_graph(tmp_path, monkeypatch, capsys):
    ns, printed = run_doc_example("subgraph", tmp_path, monkeypatch, capsys)
    final = ns["final"]
    assert final["status"] == "passed" and final["verdict"].status == "pass"
    assert final["report"].startswith("relu_ragged: passed (") and final["report"] in printed
    assert (tmp_path / "runs" / "subgraph-demo" / "kernel").is_dir()
    assert {"planner", "dsl_writer", "lowerer", "verify", "finish"} <= set(final["path"])


def test_subgraph_example_module_repairs_with_a_replayed_model(tmp_path, capsys):
    """The example module's parent graph; inside the subgraph a replayed model (the ChatModel seam) writes a
    wrong program, the debugger's fix passes: the repair loop runs inside the parent graph too."""
    from kernelwright.agent.plugins.examples import subgraph_example
    transcript = TRANSCRIPTS / "abs_scale_shift.jsonl"
    report = subgraph_example.main([str(ABS), "--model", f"replay:{transcript}", "--config", str(NO_RETRIEVAL),
                                    "--out", str(tmp_path / "art")])
    assert report.startswith("abs_scale_shift: passed after planner -> dsl_writer -> debugger -> dsl_writer -> "
                             "lowerer -> verify -> finish"), report
    assert "A.Muls(w0, w0, 1.5, n)" in (tmp_path / "art" / "kernel" / "kernel.dsl.py").read_text(), "not the fix"
    assert report in capsys.readouterr().out
