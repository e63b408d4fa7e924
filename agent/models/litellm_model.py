"""LitellmModel: any provider litellm speaks (OpenAI, Anthropic, DeepSeek, ..., and local
OpenAI-compatible servers through `api_base`). litellm is imported on the first call, after
`kernelwright._env` has set its offline switches (no price-map download, no `.env` loading)."""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from kernelwright.agent.config import ModelConfig
from kernelwright.agent.models.base import Message, ModelError, Reply, Usage

# Transient failures worth another try; anything else (auth, bad request, context window) is final.
RETRYABLE = ("RateLimitError", "APIConnectionError", "Timeout", "ServiceUnavailableError", "InternalServerError",
             "BadGatewayError")


def _litellm():
    import kernelwright._env  # noqa: F401  (offline defaults, in case the package root was bypassed)
    import litellm
    litellm.suppress_debug_info = True
    return litellm


class LitellmModel:
    def __init__(self, config: ModelConfig, completion: Callable[..., Any] | None = None,
                 sleep: Callable[[float], None] = time.sleep):
        if not config.name:
            raise ValueError("LitellmModel needs a model name (e.g. openai/gpt-4o, or openai/<name> with api_base)")
        self.config = config
        self.name = config.name
        self._completion = completion       # a stand-in for litellm.completion (tests)
        self._sleep = sleep

    def _kwargs(self, messages: list[Message], schema: type[BaseModel] | None) -> dict[str, Any]:
        c = self.config
        kw: dict[str, Any] = {"model": c.name, "messages": messages, "temperature": c.temperature,
                              "max_tokens": c.max_tokens, "timeout": c.timeout_s, **c.kwargs}
        if c.api_base:
            kw["api_base"] = c.api_base
        if schema is not None and self._supports_schema():
            kw["response_format"] = schema
        return kw

    def _supports_schema(self) -> bool:
        try:
            return bool(_litellm().supports_response_schema(model=self.name))
        except Exception:        # unknown model names: the prompt asks for JSON anyway
            return False

    def complete(self, messages: list[Message], *, node: str = "",
                 schema: type[BaseModel] | None = None) -> Reply:
        call = self._completion or _litellm().completion
        kw = self._kwargs(messages, schema)
        start = time.monotonic()
        for attempt in range(self.config.retries + 1):
            try:
                response = call(**kw)
                break
            except Exception as e:
                name = type(e).__name__
                if name not in RETRYABLE or attempt == self.config.retries:
                    raise ModelError(f"model {self.name} ({node or 'call'}): {name}: {str(e)[:500]}"
                                     + (f" (after {attempt} retries)" if attempt else "")) from e
                self._sleep(self.config.backoff_s * 2 ** attempt)
        content = response.choices[0].message.content or ""
        return Reply(content=content, usage=self._usage(response), model=self.name,
                     seconds=time.monotonic() - start)

    def _usage(self, response: Any) -> Usage:
        u = getattr(response, "usage", None)
        try:
            cost = float(_litellm().completion_cost(completion_response=response))
        except Exception:        # models without a price entry (local servers) cost nothing we know of
            cost = 0.0
        return Usage(prompt_tokens=getattr(u, "prompt_tokens", 0) or 0,
                     completion_tokens=getattr(u, "completion_tokens", 0) or 0, cost_usd=cost, calls=1)
