"""Agent tests: replayed transcripts (tests/agent/transcripts/*.jsonl, what a model would have said)
drive the whole graph on the CPU emulation; no network, no model service."""
from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).parent
TRANSCRIPTS = HERE / "transcripts"
TASK = HERE / "tasks" / "abs_scale.py"


@pytest.fixture
def agent_config(tmp_path):
    from kernelwright.agent.config import load_config
    return load_config(env={}, overrides={"paths.runs": str(tmp_path / "runs"), "retriever.enabled": False})


@pytest.fixture
def replay():
    from kernelwright.agent.models import ReplayModel
    return lambda name: ReplayModel(TRANSCRIPTS / f"{name}.jsonl")


@pytest.fixture
def run_task(agent_config, replay, sim):
    """Run the abs_scale task with a replayed transcript; returns (result, the replay model)."""
    from kernelwright.agent.api import generate

    def run(name: str, config=None, **kwargs):
        model = replay(name)
        result = generate(TASK, model=model, config=config or agent_config, toolchain=sim, **kwargs)
        return result, model
    return run
