"""Configuration: one pydantic model per component, merged in layers — a file (YAML or TOML), then
environment variables, then CLI flags — and checked as it is loaded (SoC, tolerance preset, backend,
caps, model names), so a bad value stops the run before any model is called. API keys come only from
the environment (litellm reads the provider's own variable, e.g. OPENAI_API_KEY); a key written in a
config file is an error. A run saves what it was started with (`RunSettings`); a resume uses that."""
from __future__ import annotations

import os
import re
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from kernelwright.errors import ConfigError
from kernelwright.tools.contained_paths import MISSING, input_problem
from kernelwright.tools.hardware import soc_names

NODES = ("planner", "dsl_writer", "lowerer", "debugger", "ascendc_writer")
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

    @field_validator("name")
    @classmethod
    def _name(cls, v: str | None) -> str | None:
        if v is None or v == "builtin":
            return v
        # a replay transcript is read (and a missing one reported) when the model is made
        if not (len(v) > 7 if v.startswith("replay:") else re.fullmatch(r"\w[\w.\-/:@+]*", v)):
            raise ValueError(f"{v!r} is not a model name: builtin, replay:FILE, or a litellm name such as "
                             "openai/gpt-4o or ollama_chat/qwen2.5-coder:7b")
        return v

    @field_validator("kwargs")
    @classmethod
    def _no_keys(cls, v: dict[str, Any]) -> dict[str, Any]:
        bad = _credentials(v, "kwargs")
        if bad:
            raise ValueError(f"model {', '.join(bad)}: API keys come only from the environment (e.g. OPENAI_API_KEY, "
                             "ANTHROPIC_API_KEY), never from a config file, and so do other credentials")
        return v


_SECRET_PARTS = ("key", "secret", "password", "passwd", "credential", "cookie")
_SECRET_NAMES = {"token", "api_token", "access_token", "auth_token", "authorization", "proxy-authorization", "auth",
                 "bearer"}


def _credentials(value: Any, where: str) -> list[str]:
    """Dotted places in `value` (nested dicts and lists, e.g. extra_headers.Authorization) holding a
    credential by name, or a string that is one (`Bearer ...`, `Basic ...`). Values are never shown."""
    found = []
    if isinstance(value, dict):
        for k, v in value.items():
            name = str(k).lower()
            if any(p in name for p in _SECRET_PARTS) or name in _SECRET_NAMES:
                found.append(f"{where}.{k}")
            else:
                found += _credentials(v, f"{where}.{k}")
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            found += _credentials(v, f"{where}[{i}]")
    elif isinstance(value, str) and re.match(r"(?i)\s*(bearer|basic)\s", value):
        found.append(where)
    return found


class ModelsConfig(_Strict):
    """The default model and per-node overrides (only the fields a node sets override the default)."""

    default: ModelConfig = Field(default_factory=ModelConfig)
    planner: ModelConfig | None = None
    dsl_writer: ModelConfig | None = None
    lowerer: ModelConfig | None = None
    """Fills the `extern` holes of a lowered DSL program with AscendC."""
    debugger: ModelConfig | None = None
    ascendc_writer: ModelConfig | None = None
    """Writes the kernel project directly in AscendC when the plan takes the direct route."""

    def for_node(self, node: str) -> ModelConfig:
        own = getattr(self, node, None)
        if own is None:
            return self.default
        return self.default.model_copy(update={k: getattr(own, k) for k in own.model_fields_set})


class StageCaps(_Strict):
    """How many times each node may run in one task."""

    planner: int = Field(2, ge=1)
    dsl_writer: int = Field(6, ge=1)
    lowerer: int = Field(4, ge=1)
    debugger: int = Field(4, ge=0)
    """Repairs: each failing verdict the debugger reads is one."""
    ascendc_writer: int = Field(5, ge=1)
    """The direct AscendC route: the first kernel and each revision."""


class AgentConfig(_Strict):
    caps: StageCaps = Field(default_factory=StageCaps)
    max_steps: int = Field(40, ge=1)
    """Node runs over the whole task."""
    max_llm_calls: int = Field(30, ge=0)
    max_cost_usd: float = Field(5.0, ge=0)
    max_seconds: float = Field(3600.0, gt=0)
    max_format_errors: int = Field(2, ge=0)
    """Consecutive unusable replies (no code block, wrong format) a node tolerates before the run fails."""
    interrupts: list[Literal["plan", "dsl", "accept"]] = Field(default_factory=list)
    """Pause for human review after planning, after the DSL check, before accepting a passing kernel."""


class ToolchainConfig(_Strict):
    backend: Literal["sim", "cann", "cann-syntax"] = "sim"
    """sim: the CPU emulation; cann: CANN's compiler and an NPU; cann-syntax: compile check only."""
    soc: str | None = None
    cann: Literal["8.x", "9.x"] | None = None
    """The CANN API level kernels are written for (lint, retrieval); None: the installed CANN's, else 8.x."""
    tolerance: str = "auto"
    """auto: the task's benchmark judges as it would (MultiKernelBench's preset for its tasks, ...), ours otherwise."""
    trials: int | None = Field(None, ge=1)
    budget: int | None = Field(None, ge=1)
    """Elements per case on the emulation (the referee's default when unset)."""

    @field_validator("soc")
    @classmethod
    def _soc(cls, v: str | None) -> str | None:
        if v is not None and v not in soc_names():
            raise ValueError(f"unknown SoC {v!r}; known: {', '.join(soc_names())}")
        return v

    @field_validator("tolerance")
    @classmethod
    def _tolerance(cls, v: str) -> str:
        from kernelwright.tools.referee.tolerance import AUTO, PRESETS   # the referee package imports NumPy
        if v != AUTO and v not in PRESETS:
            raise ValueError(f"unknown tolerance preset {v!r}; known: {AUTO}, {', '.join(sorted(PRESETS))}")
        return v


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


class BenchConfig(_Strict):
    """How `kernelwright bench` runs its tries (its flags override these)."""

    executor: Literal["local", "ray"] = "local"
    """local: worker processes on this machine; ray: Ray tasks on a cluster (`pip install 'kernelwright[ray]'`)."""
    address: str | None = None
    """The Ray cluster to join (`ray start --head` prints it); None: a local Ray instance."""
    artifacts: Path | None = None
    """Shared storage every node mounts at this path: tries write their artifacts there instead of
    shipping them back to <--out>/runs."""
    retries: int = Field(2, ge=0)
    """Ray: how often a try lost with its node or Ray worker is run again (the n-th time after 10·n s)
    before it is recorded as an `infrastructure` failure."""
    cpus: float = Field(1.0, gt=0)
    """Ray: CPUs each try asks for."""
    memory_gb: float = Field(2.0, ge=0)
    """Ray: memory each try asks for (0: none)."""


class PerfConfig(_Strict):
    """The performance phase: after a kernel passes, variants of its DSL program (tiling knobs, and with
    a model the optimiser's proposals) are judged by the same referee; the fastest that passes is kept."""

    enabled: bool = False
    """Off by default: every candidate is one more build and referee run (about a minute on the emulation)."""
    max_candidates: int = Field(4, ge=0)
    """Knob variants judged by the referee (a variant the DSL check rejects costs no build and is not counted)."""
    max_seconds: float = Field(600.0, gt=0)
    """Wall-clock cap of the phase; a candidate already started finishes."""
    min_gain: float = Field(0.005, ge=0)
    """A variant replaces the kernel only when its time is at least this fraction lower."""
    optimiser_rounds: int = Field(1, ge=0)
    """With a model (the dsl_writer's): proposals written from the cost report, each one candidate judged
    (a budget of their own, after the knob search)."""


class Config(_Strict):
    agent: AgentConfig = Field(default_factory=AgentConfig)
    perf: PerfConfig = Field(default_factory=PerfConfig)
    models: ModelsConfig = Field(default_factory=ModelsConfig)
    toolchain: ToolchainConfig = Field(default_factory=ToolchainConfig)
    retriever: RetrieverConfig = Field(default_factory=RetrieverConfig)
    paths: PathsConfig = Field(default_factory=PathsConfig)
    bench: BenchConfig = Field(default_factory=BenchConfig)


def read_file(path: str | Path) -> dict[str, Any]:
    p = Path(path)
    if p.suffix not in (".toml", ".yaml", ".yml"):
        raise ConfigError(f"{p}: config files are .yaml, .yml or .toml")
    import tomllib

    import yaml
    problem = input_problem(p)
    if problem and problem != MISSING:         # a missing file is reported by the read below
        raise ConfigError(f"config file {p}: {problem}")
    try:
        text = p.read_text(encoding="utf-8")
        data = tomllib.loads(text) if p.suffix == ".toml" else yaml.safe_load(text) or {}
    except OSError as e:
        raise ConfigError(f"config file {p}: {e.strerror}") from None
    except (ValueError, yaml.YAMLError) as e:
        raise ConfigError(f"config file {p}: {' '.join(str(e).split())}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{p}: the config must be a mapping of sections (agent, perf, models, toolchain, retriever, paths, bench)")
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


def validated(data: Mapping[str, Any]) -> Config:
    """The Config, or a ConfigError naming every bad setting on one line."""
    try:
        return Config.model_validate(data)
    except ValidationError as e:
        bad = [f"{'.'.join(str(x) for x in err['loc'])}: {err['msg'].removeprefix('Value error, ')}"
               + (f" (got {err['input']!r})" if err["type"] == "literal_error" else "") for err in e.errors()]
        raise ConfigError("bad configuration: " + "; ".join(bad)) from None


def load_config(path: str | Path | None = None, *, env: Mapping[str, str] | None = None,
                overrides: Mapping[str, Any] | None = None) -> Config:
    """File (or $KERNELWRIGHT_CONFIG), then environment, then `overrides` (dotted keys, e.g. from flags)."""
    env = os.environ if env is None else env
    path = path or env.get("KERNELWRIGHT_CONFIG")
    data = read_file(path) if path else {}
    data = merge(data, env_layer(env))
    data = merge(data, overrides or {})
    return validated(data)


# Short names of the settings the CLI has flags for (`--set model=NAME` is `--set models.default.name=NAME`).
ALIASES = {"model": "models.default.name", "backend": "toolchain.backend", "soc": "toolchain.soc",
           "tolerance": "toolchain.tolerance", "max_steps": "agent.max_steps", "interrupts": "agent.interrupts",
           "perf": "perf.enabled"}


NO_MODEL = (None, "builtin")


def dotted(key: str) -> str:
    return ALIASES.get(key.replace("-", "_"), key)


def setting(cfg: Config, key: str) -> Any:
    value: Any = cfg.model_dump(mode="json")
    for part in key.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


class SettingChange(_Strict):
    key: str
    old: Any
    new: Any
    at: float = Field(default_factory=time.time)


class RunSettings(_Strict):
    """What a run was started with, saved in its checkpoint: the resolved configuration (review points
    included) and the model each node used. A resume uses it; a setting changes only when the caller
    names the change, and every change is kept here."""

    config: Config
    models: dict[str, str]             # node -> model name (`builtin`: no model)
    changes: list[SettingChange] = Field(default_factory=list)

    def resumed(self, asked: Mapping[str, Any], changes: Mapping[str, Any]) -> RunSettings:
        """These settings with `changes` made. A setting in `asked` (what the caller passed without
        naming it a change) that differs from the saved one is refused: it would change the run midway."""
        changes = {dotted(k): v for k, v in changes.items()}
        for key, value in asked.items():
            old = setting(self.config, key)
            if value is not None and key not in changes and old != value and not (old in NO_MODEL and value in NO_MODEL):
                raise ConfigError(f"this run was started with {key}={old!r}; resuming with {value!r} would change it "
                                  f"midway: name the change (--set {key}=... on the command line, changes="
                                  f"{{{key!r}: ...}} in Python; it is recorded) or resume without it")
        if not changes:
            return self
        config = validated(merge(self.config.model_dump(mode="json"), changes))
        made = [SettingChange(key=k, old=setting(self.config, k), new=setting(config, k)) for k in changes]
        made = [c for c in made if c.old != c.new]
        models = self.models
        if any(c.key.startswith("models.") for c in made):
            models = {n: config.models.for_node(n).name or "builtin" for n in models}
        return RunSettings(config=config, models=models, changes=self.changes + made)
