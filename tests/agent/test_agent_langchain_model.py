"""A LangChain chat model behind the ChatModel seam: an instance (or an `init_chat_model` name) drives the
graph, with every call and its tokens counted. LangChain's own fake chat models stand in for a provider."""
import pytest

from kernelwright.agent.models import LangchainModel, ModelError, as_chat_model

TRANSCRIPTS = __import__("pathlib").Path(__file__).parent / "transcripts"


def test_a_chat_model_reply_with_its_usage():
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage
    fake = GenericFakeChatModel(messages=iter([AIMessage(content="hello", usage_metadata={
        "input_tokens": 11, "output_tokens": 3, "total_tokens": 14})]))
    model = as_chat_model(fake)
    assert isinstance(model, LangchainModel) and model.name.startswith("langchain:")
    reply = model.complete([{"role": "system", "content": "s"}, {"role": "user", "content": "hi"}], node="planner")
    assert reply.content == "hello" and (reply.usage.prompt_tokens, reply.usage.completion_tokens) == (11, 3)
    assert reply.usage.calls == 1


def test_a_failing_provider_is_a_model_error():
    from langchain_core.language_models.fake_chat_models import FakeListChatModel
    with pytest.raises(ModelError, match="planner"):
        as_chat_model(FakeListChatModel(responses=[])).complete([{"role": "user", "content": "x"}], node="planner")


def test_a_langchain_model_runs_the_graph_and_every_call_is_counted(agent_config, sim):
    from langchain_core.language_models.fake_chat_models import FakeListChatModel
    from kernelwright.agent.api import generate
    from kernelwright.agent.models.replay import load_transcript
    replies = [e["reply"] for e in load_transcript(TRANSCRIPTS / "dsl_rule_repair.jsonl")]
    fake = FakeListChatModel(responses=replies)            # reports no usage: tokens are estimated, calls counted
    result = generate(TRANSCRIPTS.parent / "tasks" / "abs_scale.py", model=fake, config=agent_config, toolchain=sim)
    assert result.status == "passed", result.reason
    assert result.usage["calls"] == len(replies) == 3 and result.usage["prompt_tokens"] > 1000


def test_an_unknown_langchain_name_is_a_config_error():
    from kernelwright.agent.models.langchain_model import from_name
    from kernelwright.errors import ConfigError
    with pytest.raises(ConfigError, match="langchain"):
        from_name("langchain:no-such-provider:model")
