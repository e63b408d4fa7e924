"""LangchainModel: a LangChain chat model (any `BaseChatModel`, or a name `init_chat_model` resolves, e.g.
`langchain:openai:gpt-4o`) behind the `ChatModel` seam, with its token usage counted. LangChain is imported
only when such a model is asked for."""
from __future__ import annotations

import time
from typing import Any

from pydantic import BaseModel

from kernelwright.agent.models.base import Message, ModelError, Reply, Usage, estimated_usage
from kernelwright.errors import ConfigError

PREFIX = "langchain:"


def is_langchain_chat_model(obj: Any) -> bool:
    """A `BaseChatModel` instance, recognised without importing LangChain for everyone else."""
    return any(c.__name__ == "BaseChatModel" and c.__module__.startswith("langchain_core")
               for c in type(obj).__mro__)


def from_name(name: str) -> "LangchainModel":
    """`langchain:<provider>:<model>` (or `langchain:<model>`) through `init_chat_model`."""
    try:
        from langchain.chat_models import init_chat_model
    except ImportError:
        raise ConfigError(f"model {name}: `init_chat_model` needs the `langchain` package (pip install langchain "
                          "and the provider's integration, e.g. langchain-openai)") from None
    try:
        return LangchainModel(init_chat_model(name[len(PREFIX):]))
    except (ImportError, ValueError) as e:
        raise ConfigError(f"model {name}: LangChain cannot make this chat model: {e}") from None


class LangchainModel:
    def __init__(self, chat: Any):
        self.chat = chat
        label = getattr(chat, "model_name", None) or getattr(chat, "model", None) or type(chat).__name__
        self.name = f"{PREFIX}{label}"

    def complete(self, messages: list[Message], *, node: str = "",
                 schema: type[BaseModel] | None = None) -> Reply:
        start = time.monotonic()
        try:
            response = self.chat.invoke([{"role": m["role"], "content": m.get("content", "")} for m in messages])
        except Exception as e:      # the provider's failures (network, auth, quota): not the kernel's, nor ours
            raise ModelError(f"model {self.name} ({node or 'call'}): {type(e).__name__}: {str(e)[:500]}") from e
        content = response.content if isinstance(response.content, str) else "".join(
            p.get("text", "") if isinstance(p, dict) else str(p) for p in response.content)
        return Reply(content=content, usage=self._usage(response, messages, content), model=self.name,
                     seconds=time.monotonic() - start)

    @staticmethod
    def _usage(response: Any, messages: list[Message], content: str) -> Usage:
        meta = getattr(response, "usage_metadata", None)
        if not meta:                # a model that reports no usage: estimated, the call still counted
            return estimated_usage(messages, content)
        return Usage(prompt_tokens=int(meta.get("input_tokens", 0)), completion_tokens=int(meta.get("output_tokens", 0)),
                     calls=1)
