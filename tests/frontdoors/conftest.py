"""Front-door tests (chat, bench, MCP, LangChain, subgraph, Python API): scripted or replayed models
through the ChatModel seam, the builtin writer, the sim backend; no network, no LLM, no NPU.

Runs of the agent are the expensive part (several seconds each), so the ones several tests look at
are made once per session here."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from frontdoor_env import RELU, TRANSCRIPTS  # noqa: E402


@pytest.fixture(scope="session")
def builtin_config(tmp_path_factory):
    """Agent configuration of in-process runs: the builtin writer, no retrieval, runs in a temp dir."""
    from kernelwright.agent.config import load_config
    runs = tmp_path_factory.mktemp("runs")
    return load_config(env={}, overrides={"paths.runs": str(runs), "retriever.enabled": False,
                                          "models.default.name": "builtin"})


@pytest.fixture(scope="session")
def relu_kernel(tmp_path_factory, builtin_config, sim):
    """One passing run of relu_ragged through `kernelwright.generate`, a ScriptedModel (a ChatModel object)
    answering every node: (result, streamed events, the model)."""
    import kernelwright
    from kernelwright.agent.models import ScriptedModel
    replies = TRANSCRIPTS / "replies"
    model = ScriptedModel([{"node": "planner", "content": (replies / "plan_elementwise.json").read_text()},
                           {"node": "dsl_writer", "content": (replies / "relu_ragged.md").read_text()}])
    out = tmp_path_factory.mktemp("relu") / "run"
    events: list[tuple[str, object]] = []
    result = kernelwright.generate(RELU, model=model, config=builtin_config, out=out, toolchain=sim,
                                   on_event=lambda mode, chunk: events.append((mode, chunk)))
    return result, events, model
