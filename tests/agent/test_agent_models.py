"""The ChatModel seam: scripted and replayed models, the recorder, the litellm adapter (offline: litellm's
own mock responses and a stand-in completion function), and models per node from the config."""
import json

import pytest

from kernelwright.agent.config import ModelConfig, load_config
from kernelwright.agent.models import (ModelError, RecordingModel, ReplayModel, ScriptedModel, TranscriptDiverged,
                                       models_for)

MSG = [{"role": "user", "content": "write the kernel for task relu"}]


def test_scripted_model_replies_raises_and_runs_out():
    m = ScriptedModel(["one", {"content": "two", "node": "debugger"}, RuntimeError("boom")])
    assert m.complete(MSG, node="planner").content == "one"
    with pytest.raises(TranscriptDiverged, match="meant for node 'debugger' but node 'lowerer' asked"):
        m.complete(MSG, node="lowerer")
    with pytest.raises(RuntimeError, match="boom"):
        m.complete(MSG, node="planner")
    with pytest.raises(TranscriptDiverged, match="asked for reply 4, the script has 3"):
        m.complete(MSG, node="planner")
    assert [n for n, _ in m.calls] == ["planner", "lowerer", "planner", "planner"]


def test_replay_checks_node_and_expected_text(tmp_path):
    (tmp_path / "r.md").write_text("```python\nprint(1)\n```\n")
    path = tmp_path / "t.jsonl"
    path.write_text("# comment\n\n"
                    '{"node": "planner", "reply": "{}", "usage": {"prompt_tokens": 7, "completion_tokens": 3}}\n'
                    '{"node": "dsl_writer", "expect": ["task relu"], "reply_file": "r.md"}\n'
                    '{"node": "debugger", "expect": ["stage build"], "reply": "x"}\n')
    m = ReplayModel(path)
    r = m.complete(MSG, node="planner")
    assert (r.content, r.usage.prompt_tokens, r.usage.calls) == ("{}", 7, 1)
    assert m.complete(MSG, node="dsl_writer").content.startswith("```python")
    with pytest.raises(TranscriptDiverged, match=r"t.jsonl line 5 \(exchange 3\): the request to 'debugger' should "
                                                 r"contain \['stage build'\]"):
        m.complete(MSG, node="debugger")
    m.seek(1)
    with pytest.raises(TranscriptDiverged, match="answers node 'dsl_writer' here, but node 'lowerer' asked"):
        m.complete(MSG, node="lowerer")
    m.seek(3)
    with pytest.raises(TranscriptDiverged, match="has 3; the graph went on where the recorded run had stopped"):
        m.complete(MSG, node="planner")


def test_replay_rejects_a_malformed_line(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"node": "planner"}\n')
    with pytest.raises(ValueError, match="bad.jsonl:1: the exchange has neither `reply`"):
        ReplayModel(path)


def test_recorder_writes_what_replay_reads_back(tmp_path):
    log = tmp_path / "calls.jsonl"
    rec = RecordingModel(ScriptedModel(["plan", ModelError("quota")]), log)
    assert rec.complete(MSG, node="planner").content == "plan"
    with pytest.raises(ModelError):
        rec.complete(MSG, node="debugger")
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    assert lines[0]["messages"] == MSG and lines[0]["reply"] == "plan" and lines[1]["error"] == "ModelError: quota"
    strict = ReplayModel(log, strict=True)
    assert strict.complete(MSG, node="planner").content == "plan"
    with pytest.raises(ModelError, match="recorded error: ModelError: quota"):
        strict.complete(MSG, node="debugger")
    other = ReplayModel(log, strict=True)
    with pytest.raises(TranscriptDiverged, match=r"differs from the recording:(.|\n)*\+\[user\] something else"):
        other.complete([{"role": "user", "content": "something else"}], node="planner")


def test_litellm_adapter_offline_with_usage_and_cost():
    from kernelwright.agent.models.litellm_model import LitellmModel
    m = LitellmModel(ModelConfig(name="openai/gpt-4o-mini", kwargs={"mock_response": "```python\nok\n```"}))
    r = m.complete(MSG, node="dsl_writer")
    assert r.content == "```python\nok\n```" and r.usage.prompt_tokens > 0 and r.usage.completion_tokens > 0
    assert r.usage.cost_usd > 0 and r.usage.calls == 1


def test_litellm_adapter_retries_transient_errors_with_backoff():
    import litellm

    from kernelwright.agent.models.litellm_model import LitellmModel
    from kernelwright.agent.state import Plan
    seen, sleeps = [], []

    def completion(**kw):
        seen.append(kw)
        if len(seen) < 3:
            raise litellm.RateLimitError("slow down", llm_provider="openai", model="gpt-4o")
        return litellm.completion(model=kw["model"], messages=kw["messages"], mock_response='{"a": 1}')
    m = LitellmModel(ModelConfig(name="openai/gpt-4o", api_base="http://localhost:9/v1", backoff_s=0.5),
                     completion=completion, sleep=sleeps.append)
    assert m.complete(MSG, node="planner", schema=Plan).content == '{"a": 1}'
    assert sleeps == [0.5, 1.0] and seen[0]["api_base"] == "http://localhost:9/v1"
    assert seen[0]["response_format"] is Plan          # structured output where the provider supports it

    def denied(**kw):
        raise litellm.AuthenticationError("bad key", llm_provider="openai", model="gpt-4o")
    with pytest.raises(ModelError, match="AuthenticationError"):
        LitellmModel(ModelConfig(name="openai/gpt-4o"), completion=denied, sleep=sleeps.append).complete(MSG)
    assert len(sleeps) == 2                             # no retry for a final error


def test_models_per_node_from_config(tmp_path):
    t = tmp_path / "t.jsonl"
    t.write_text('{"reply": "x"}\n')
    cfg = load_config(env={"KERNELWRIGHT_MODEL": f"replay:{t}", "KERNELWRIGHT_MODEL_DEBUGGER": "builtin"})
    models = models_for(cfg.models)
    assert models["debugger"] is None and models["planner"] is models["dsl_writer"] is models["lowerer"]
    assert isinstance(models["planner"], ReplayModel)
    assert all(m is None for m in models_for(load_config(env={}).models).values())


def test_importing_the_adapter_does_not_import_litellm():
    import subprocess
    import sys
    code = ("import sys, os; import kernelwright.agent.models.litellm_model, kernelwright.agent.api; "
            "print('litellm' in sys.modules, os.environ['LITELLM_LOCAL_MODEL_COST_MAP'], os.environ['LITELLM_MODE'])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.split() == ["False", "True", "PRODUCTION"], out.stderr
