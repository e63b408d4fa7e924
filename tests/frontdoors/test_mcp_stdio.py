"""`kernelwright mcp` as a real stdio subprocess, driven by the mcp client library: the four tools
with typed input and output schemas, structured results, progress notifications of a long run, and
bad input reported to the caller with its reason."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from frontdoor_env import KERNELWRIGHT, RELU, TRANSCRIPTS, child_env  # noqa: E402

TOOLS = {"generate_kernel", "verify_kernel", "lower_dsl", "search_docs"}


def dsl_of(reply: str) -> str:
    return (TRANSCRIPTS / "replies" / reply).read_text().split("```python\n", 1)[1].split("```", 1)[0]


async def _conversation(runs: Path, errlog) -> dict:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=str(KERNELWRIGHT), args=["mcp", "--runs", str(runs)], env=child_env())
    seen: dict = {"progress": []}

    async def progress(value: float, total: float | None, message: str | None) -> None:
        seen["progress"].append((value, message))

    async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
        seen["init"] = await session.initialize()
        seen["tools"] = {t.name: t for t in (await session.list_tools()).tools}
        good = dsl_of("relu_ragged.md")
        seen["lower"] = await session.call_tool("lower_dsl", {"dsl": good, "name": "ReluMcp"})
        seen["lower_again"] = await session.call_tool("lower_dsl", {"dsl": good, "name": "ReluMcp"})
        seen["lower_bad"] = await session.call_tool("lower_dsl", {"dsl": good.replace("A.Relu(w0, w0, n)",
                                                                                       "A.Relu(w0, w0)")})
        seen["search"] = await session.call_tool("search_docs", {"query": "AscendC::Relu", "k": 1})
        seen["search_bad"] = await session.call_tool("search_docs", {"query": "Relu", "k": 50})
        seen["generate"] = await session.call_tool("generate_kernel", {"task": str(RELU), "model": "builtin"},
                                                   progress_callback=progress)
        kernel = (seen["generate"].structured_content or {}).get("kernel_dir") or str(runs / "none")
        seen["verify"] = await session.call_tool("verify_kernel", {"project": kernel, "task": str(RELU)})
        seen["verify_bad"] = await session.call_tool("verify_kernel", {"project": str(runs / "no_such_project"),
                                                                       "task": str(RELU)})
    return seen


@pytest.fixture(scope="module")
def mcp_session(tmp_path_factory):
    import anyio
    root = tmp_path_factory.mktemp("mcp")
    with (root / "server.log").open("w") as errlog:
        seen = anyio.run(_conversation, root / "runs", errlog)
    seen["log"] = (root / "server.log").read_text()
    seen["runs"] = root / "runs"
    return seen


def test_server_lists_the_four_tools_with_typed_schemas(mcp_session):
    tools = mcp_session["tools"]
    assert set(tools) == TOOLS, mcp_session["log"][-2000:]
    assert mcp_session["init"].server_info.name == "kernelwright"
    gen = tools["generate_kernel"].input_schema
    assert gen["required"] == ["task"] and gen["properties"]["backend"]["enum"] == ["sim", "cann", "cann-syntax"]
    assert "description" in gen["properties"]["task"]
    assert tools["search_docs"].input_schema["properties"]["k"]["maximum"] == 20
    assert set(tools["verify_kernel"].input_schema["required"]) == {"project", "task"}
    outputs = {name: set(t.output_schema["properties"]) for name, t in tools.items()}
    assert {"status", "ok", "kernel_dir", "verdict", "dsl"} <= outputs["generate_kernel"]
    assert {"status", "ok", "failing_stage", "stages", "details"} <= outputs["verify_kernel"]
    assert {"ok", "stage", "diagnostics", "files", "holes"} <= outputs["lower_dsl"]
    assert outputs["search_docs"] == {"passages"}


def test_lower_dsl_returns_the_project(mcp_session):
    r = mcp_session["lower"]
    assert not r.is_error, r.content
    out = r.structured_content
    assert out["ok"] and out["stage"] == "pass" and out["holes"] == []
    assert any(f.startswith("op_kernel/") for f in out["files"]) and any(f.startswith("op_host/") for f in out["files"])
    assert Path(out["project_dir"]).is_dir() and str(mcp_session["runs"]) in out["project_dir"]


def test_lower_dsl_calls_with_one_name_do_not_overwrite_each_other(mcp_session):
    first, again = mcp_session["lower"].structured_content, mcp_session["lower_again"].structured_content
    assert again["ok"] and again["project_dir"] != first["project_dir"]
    assert Path(first["project_dir"]).is_dir() and Path(again["project_dir"]).is_dir()
    assert Path(again["project_dir"]).name.startswith("ReluMcp-")


def test_lower_dsl_reports_a_broken_program_as_data(mcp_session):
    r = mcp_session["lower_bad"]
    assert not r.is_error, r.content
    out = r.structured_content
    assert not out["ok"] and out["stage"] in ("parse", "rules") and out["diagnostics"], out
    assert out["files"] == {} and out["project_dir"] is None


def test_search_docs_exact_api_lookup(mcp_session):
    """An exact API name is answered from the cards, without building the search index."""
    r = mcp_session["search"]
    assert not r.is_error, r.content
    (p,) = r.structured_content["passages"]
    assert (p["doc_id"], p["kind"], p["match"]) == ("api/Relu", "api", "exact")
    assert p["cite"].startswith("knowledge/corpus/api/Relu.md") and "Relu" in p["text"]


def test_generate_kernel_with_the_builtin_writer_and_progress(mcp_session):
    r = mcp_session["generate"]
    assert not r.is_error, r.content
    out = r.structured_content
    assert out["status"] == "passed" and out["ok"], out["reason"]
    assert out["verdict"]["status"] == "pass" and "A.Relu" in out["dsl"] and "Relu(" in out["kernel_source"]
    assert Path(out["kernel_dir"]).is_dir() and out["artifacts"].startswith(str(mcp_session["runs"]))
    progress = mcp_session["progress"]
    values = [v for v, _ in progress]
    assert values == sorted(values) and values[-1] > values[0], progress
    messages = [m for _, m in progress]
    assert messages[0] == "generate_kernel: started" and messages[-1] == "generate_kernel: done"
    for step in ("planner: plan for", "dsl_writer: DSL v1 check passed", "lowerer: project v1", "verify: pass"):
        assert any(m.startswith(step) for m in messages), (step, messages)


def test_verify_kernel_structured_verdict(mcp_session):
    r = mcp_session["verify"]
    assert not r.is_error, r.content
    out = r.structured_content
    assert out["status"] == "pass" and out["ok"] and out["failing_stage"] == "pass"
    assert {"lint", "build", "run"} <= {s["name"] for s in out["stages"]}
    assert (out["backend"], out["tolerance"]) == ("sim", "default")


def test_bad_input_reaches_the_caller_with_its_reason(mcp_session):
    r = mcp_session["verify_bad"]
    assert r.is_error and "no_such_project" in r.content[0].text, r.content
    r = mcp_session["search_bad"]
    assert r.is_error and "less than or equal to 20" in r.content[0].text, r.content


def test_search_docs_refuses_when_the_config_switches_retrieval_off():
    """In-process: the server's config decides; a switched-off retriever is a reason, not an empty answer."""
    from kernelwright.agent.plugins import ops
    from kernelwright.agent.plugins.schemas import SearchInput

    enabled = ops.retrieval_switch(TRANSCRIPTS / "no_retrieval.yaml")
    assert enabled is False and ops.retrieval_switch(None) is None
    with pytest.raises(ValueError, match=r"retriever\.enabled: false"):
        ops.search_docs(SearchInput(query="how do I double-buffer a queue"), enabled=enabled)
