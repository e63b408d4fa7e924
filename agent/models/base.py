"""The `ChatModel` seam: messages (+ an optional output schema) -> a reply with token usage and cost.

Implementations: `LitellmModel` (any provider litellm speaks, local OpenAI-compatible servers
included), `ReplayModel` (plays a recorded transcript back), `ScriptedModel` (a list of replies, for
tests) and `RecordingModel` (wraps any of them and saves every exchange)."""
from __future__ import annotations

from typing import Protocol, runtime_checkable

from pydantic import BaseModel

Message = dict[str, str]          # {"role": "system" | "user" | "assistant", "content": "..."}


class Usage(BaseModel):
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    calls: int = 0

    def __add__(self, other: "Usage") -> "Usage":
        return Usage(prompt_tokens=self.prompt_tokens + other.prompt_tokens,
                     completion_tokens=self.completion_tokens + other.completion_tokens,
                     cost_usd=self.cost_usd + other.cost_usd, calls=self.calls + other.calls)

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


class Reply(BaseModel):
    content: str
    usage: Usage = Usage()
    model: str = ""
    seconds: float = 0.0


class ModelError(Exception):
    """The model service could not answer (network, authentication, quota) after its retries.
    The run ends with `environment_error`; it is not the kernel's fault, nor ours."""


class TranscriptDiverged(Exception):
    """A replayed conversation asked for something the recording does not hold (our bug or a stale
    recording): raised loudly, never turned into a verdict."""


@runtime_checkable
class ChatModel(Protocol):
    name: str

    def complete(self, messages: list[Message], *, node: str = "",
                 schema: type[BaseModel] | None = None) -> Reply:
        """One reply. `node` names the graph node asking (recorders and replays key on it); `schema`
        asks for a JSON reply of that shape (structured output where the provider supports it)."""
        ...


def estimate_tokens(text: str) -> int:
    """A rough count (4 characters a token) for models that do not report usage."""
    return max(1, len(text) // 4) if text else 0


def estimated_usage(messages: list[Message], reply: str) -> Usage:
    return Usage(prompt_tokens=sum(estimate_tokens(m.get("content", "")) for m in messages),
                 completion_tokens=estimate_tokens(reply), calls=1)
