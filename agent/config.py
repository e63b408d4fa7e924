"""Configuration: one pydantic model per component, merged in layers — a file (YAML or TOML), then
environment variables, then CLI flags. API keys come only from the environment (litellm reads the
provider's own variable, e.g. OPENAI_API_KEY); a key written in a config file is an error."""
from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

NODES = ("planner", "dsl_writer", "lowerer", "debugger")
INTERRUPTS = ("plan", "dsl", "accept")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ModelConfig(_Strict):
    """One model. `name` is `builtin` (no LLM: the builtin writer), `replay:FILE` (a recorded
    transcript) or any litellm model name (`openai/gpt-4o`, `anthropic/...`, `openai/<local>` with
    `api_base` for a local OpenAI-compatible server)."""

    name: str | None = None
    """None: no model configured (the builtin writer is used)."""
    api_base: str | None = None
    """Endpoint of an OpenAI-compatible server (vLLM, Ollama's /v1, ...)."""
    temperature: float = 0.2
    max_tokens: int = 8192
    timeout_s: float = 300.0
    retries: int = 3
    """Retries after a transient failure (rate limit, connection, 5xx), with exponential backoff."""
    backoff_s: float = 2.0
    kwargs: dict[str, Any] = Field(default_factory=dict)
    """Extra keyword arguments for litellm.completion (never keys)."""

    @field_validator("kwargs")
    @classmethod
    def _no_keys(cls, v: dict[str, Any]) -> dict[str, Any]:
        bad = [k for k in v if "key" in k.lower() or k.lower() in ("token", "api_token", "access_token", "auth_token")]
        if bad:
            raise ValueError(f"model kwargs {bad}: API keys come only from the environment "
                             "(e.g. OPENAI_API_KEY, ANTHROPIC_API_KEY), never from a config file")
        return v


class ModelsConfig(_Strict):
    """The default model and per-node overrides (only the fields a node sets override the default)."""

    default: ModelConfig = Field(default_factory=ModelConfig)
    planner: ModelConfig | None = None
    dsl_writer: ModelConfig | None = None
    lowerer: ModelConfig | None = None
    """Fills the `extern` holes of a lowered DSL program with AscendC."""
    debugger: ModelConfig | None = None

    def for_node(self, node: str) -> ModelConfig:
        own = getattr(self, node, None)
        if own is None:
            return self.default
        return self.default.model_copy(update={k: getattr(own, k) for k in own.model_fields_set})


class StageCaps(_Strict):
    """How many times each node may run in one task."""

    planner: int = 2
    dsl_writer: int = 6
    lowerer: int = 4
    debugger: int = 4
    """Repairs: each failing verdict the debugger reads is one."""


class AgentConfig(_Strict):
    caps: StageCaps = Field(default_factory=StageCaps)
    max_steps: int = 40
    """Node runs over the whole task."""
    max_llm_calls: int = 30
    max_cost_usd: float = 5.0
    max_seconds: float = 3600.0
    max_format_errors: int = 2
    """Consecutive unusable replies (no code block, wrong format) a node tolerates before the run fails."""
    interrupts: list[Literal["plan", "dsl", "accept"]] = Field(default_factory=list)
    """Pause for human review after planning, after the DSL check, before accepting a passing kernel."""


class ToolchainConfig(_Strict):
    backend: Literal["sim", "cann", "cann-syntax"] = "sim"
    """sim: the CPU emulation; cann: CANN's compiler and an NPU; cann-syntax: compile check only."""
    soc: str | None = None
    cann: Literal["8.x", "9.x"] | None = None
    """The CANN API level kernels are written for (lint, retrieval); None: the installed CANN's, else 8.x."""
    tolerance: str = "default"
    trials: int | None = None
    budget: int | None = None
    """Elements per case on the emulation (the referee's default when unset)."""


class RetrieverConfig(_Strict):
    enabled: bool | None = None
    """None: on when an LLM is configured (the builtin writer reads no documents)."""
    k: int = 4


class PathsConfig(_Strict):
    runs: Path = Path("runs")
    """Each run writes its artifact directory below this one (unless --out names it)."""
    checkpoints: Path | None = None
    """SQLite checkpoint file; default: <runs>/checkpoints.sqlite."""

    def checkpoint_file(self) -> Path:
        return self.checkpoints or self.runs / "checkpoints.sqlite"


class Config(_Strict):
    agent: AgentConfig = Field(default_factory=AgentConfig)
    models: ModelsConfig = Field(default_factory=ModelsConfig)
    toolchain: ToolchainConfig = Field(default_factory=ToolchainConfig)
    retriever: RetrieverConfig = Field(default_factory=RetrieverConfig)
    paths: PathsConfig = Field(default_factory=PathsConfig)


def read_file(path: str | Path) -> dict[str, Any]:
    p = Path(path)
    text = p.read_text(encoding="utf-8")
    if p.suffix == ".toml":
        import tomllib
        data = tomllib.loads(text)
    elif p.suffix in (".yaml", ".yml"):
        import yaml
        data = yaml.safe_load(text) or {}
    else:
        raise ValueError(f"{p}: config files are .yaml, .yml or .toml")
    if not isinstance(data, dict):
        raise ValueError(f"{p}: the config must be a mapping of sections (agent, models, toolchain, retriever, paths)")
    return data


def env_layer(env: Mapping[str, str]) -> dict[str, Any]:
    """KERNELWRIGHT_MODEL, KERNELWRIGHT_MODEL_<NODE> (e.g. _DEBUGGER), KERNELWRIGHT_API_BASE,
    KERNELWRIGHT_BACKEND, KERNELWRIGHT_SOC, KERNELWRIGHT_CANN, KERNELWRIGHT_RUNS."""
    out: dict[str, Any] = {}
    simple = {"KERNELWRIGHT_MODEL": "models.default.name", "KERNELWRIGHT_API_BASE": "models.default.api_base",
              "KERNELWRIGHT_BACKEND": "toolchain.backend", "KERNELWRIGHT_SOC": "toolchain.soc",
              "KERNELWRIGHT_CANN": "toolchain.cann",
              "KERNELWRIGHT_RUNS": "paths.runs"}
    simple |= {f"KERNELWRIGHT_MODEL_{n.upper()}": f"models.{n}.name" for n in NODES}
    for var, dotted in simple.items():
        if env.get(var):
            out[dotted] = env[var]
    return out


def merge(base: dict[str, Any], dotted: Mapping[str, Any]) -> dict[str, Any]:
    """Set `a.b.c` keys into a nested dict (None values are skipped: an unset flag)."""
    out = {k: (dict(v) if isinstance(v, dict) else v) for k, v in base.items()}
    for key, value in dotted.items():
        if value is None:
            continue
        node = out
        parts = key.split(".")
        for part in parts[:-1]:
            child = node.get(part)
            node[part] = child = dict(child) if isinstance(child, dict) else {}
            node = child
        node[parts[-1]] = value
    return out


def load_config(path: str | Path | None = None, *, env: Mapping[str, str] | None = None,
                overrides: Mapping[str, Any] | None = None) -> Config:
    """File (or $KERNELWRIGHT_CONFIG), then environment, then `overrides` (dotted keys, e.g. from flags)."""
    env = os.environ if env is None else env
    path = path or env.get("KERNELWRIGHT_CONFIG")
    data = read_file(path) if path else {}
    data = merge(data, env_layer(env))
    data = merge(data, overrides or {})
    return Config.model_validate(data)
