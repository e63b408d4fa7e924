"""Configuration layers: file, then environment, then flags; keys only from the environment; every value
checked as it is loaded (one line naming the setting), and a run's saved settings changed only by name."""
import pytest

from kernelwright.agent.config import RunSettings, load_config
from kernelwright.errors import ConfigError, UserError


def test_defaults():
    cfg = load_config(env={})
    assert cfg.models.default.name is None and cfg.toolchain.backend == "sim"
    assert cfg.agent.caps.debugger == 4 and cfg.agent.interrupts == []
    assert cfg.paths.checkpoint_file().name == "checkpoints.sqlite"


def test_file_then_env_then_flags(tmp_path):
    f = tmp_path / "kw.yaml"
    f.write_text("models:\n  default: {name: openai/gpt-4o, temperature: 0.0}\n  debugger: {name: openai/o3}\n"
                 "agent:\n  caps: {dsl_writer: 3}\n  interrupts: [plan, accept]\n")
    cfg = load_config(f, env={})
    assert cfg.models.for_node("debugger").name == "openai/o3"
    assert cfg.models.for_node("debugger").temperature == 0.0        # unset fields come from the default
    assert cfg.models.for_node("planner").name == "openai/gpt-4o" and cfg.agent.caps.dsl_writer == 3
    env = {"KERNELWRIGHT_MODEL": "anthropic/claude", "KERNELWRIGHT_MODEL_LOWERER": "openai/local"}
    cfg = load_config(f, env=env)
    assert cfg.models.for_node("planner").name == "anthropic/claude"
    assert cfg.models.for_node("lowerer").name == "openai/local" and cfg.models.for_node("debugger").name == "openai/o3"
    cfg = load_config(f, env=env, overrides={"models.default.name": "builtin", "agent.max_steps": 7, "toolchain.soc": None})
    assert cfg.models.default.name == "builtin" and cfg.agent.max_steps == 7


def test_toml_and_the_config_variable(tmp_path):
    f = tmp_path / "kw.toml"
    f.write_text('[toolchain]\nsoc = "Ascend910B4"\ntolerance = "mkb"\n')
    cfg = load_config(env={"KERNELWRIGHT_CONFIG": str(f)})
    assert cfg.toolchain.soc == "Ascend910B4" and cfg.toolchain.tolerance == "mkb"


def test_keys_in_a_file_and_unknown_settings_are_errors(tmp_path):
    f = tmp_path / "kw.yaml"
    f.write_text("models:\n  default: {name: openai/gpt-4o, kwargs: {api_key: sk-123}}\n")
    with pytest.raises(ConfigError, match="API keys come only from the environment"):
        load_config(f, env={})
    f.write_text("agent:\n  max_stepz: 3\n")
    with pytest.raises(ConfigError, match="max_stepz"):
        load_config(f, env={})
    f.write_text("models:\n  default: {name: x, api_key: sk-1}\n")
    with pytest.raises(ConfigError, match="api_key"):
        load_config(f, env={})


@pytest.mark.parametrize("overrides, message", [
    ({"toolchain.soc": "Bogus"}, "toolchain.soc: unknown SoC 'Bogus'; known: "),
    ({"toolchain.tolerance": "bogus"}, "toolchain.tolerance: unknown tolerance preset 'bogus'; known: "),
    ({"toolchain.backend": "bogus"}, "toolchain.backend: Input should be 'sim', 'cann' or 'cann-syntax' (got 'bogus')"),
    ({"agent.caps.lowerer": 0}, "agent.caps.lowerer: Input should be greater than or equal to 1"),
    ({"agent.max_steps": -3}, "agent.max_steps: Input should be greater than or equal to 1"),
    ({"models.default.name": "gpt 4o"}, "models.default.name: 'gpt 4o' is not a model name"),
    ({"models.debugger.name": "replay:"}, "models.debugger.name: 'replay:' is not a model name"),
])
def test_bad_values_are_refused_as_the_config_is_loaded(overrides, message):
    with pytest.raises(ConfigError) as err:
        load_config(env={}, overrides=overrides)
    text = str(err.value)
    assert isinstance(err.value, UserError) and "\n" not in text and text.startswith("bad configuration: ")
    assert message in text, text


def test_good_model_names_pass(tmp_path):
    transcript = tmp_path / "calls.jsonl"
    transcript.write_text("")
    for name in ("builtin", "openai/gpt-4o", "ollama_chat/qwen2.5-coder:7b", f"replay:{transcript}",
                 "bedrock/anthropic.claude-3-sonnet-20240229-v1:0"):
        assert load_config(env={}, overrides={"models.default.name": name}).models.default.name == name
    with pytest.raises(ConfigError, match="config file .*missing.yaml: No such file"):
        load_config(tmp_path / "missing.yaml", env={})
    (tmp_path / "bad.yaml").write_text("agent: [unclosed\n")
    with pytest.raises(ConfigError, match="config file .*bad.yaml: "):
        load_config(tmp_path / "bad.yaml", env={})


def test_saved_settings_change_only_by_name():
    saved = RunSettings(config=load_config(env={}, overrides={"models.default.name": "openai/gpt-4o"}),
                        models={"planner": "openai/gpt-4o", "debugger": "openai/gpt-4o"})
    assert saved.resumed({"models.default.name": "openai/gpt-4o", "agent.interrupts": None}, {}) is saved
    with pytest.raises(ConfigError, match=r"started with models.default.name='openai/gpt-4o'; resuming with "
                                          r"'openai/o3' would change it midway: name the change"):
        saved.resumed({"models.default.name": "openai/o3"}, {})
    changed = saved.resumed({"models.default.name": "openai/o3"}, {"model": "openai/o3", "tolerance": "mkb"})
    assert changed.config.models.default.name == "openai/o3" and changed.config.toolchain.tolerance == "mkb"
    assert changed.models == {"planner": "openai/o3", "debugger": "openai/o3"}
    assert [(c.key, c.old, c.new) for c in changed.changes] == [("models.default.name", "openai/gpt-4o", "openai/o3"),
                                                                ("toolchain.tolerance", "auto", "mkb")]
    with pytest.raises(ConfigError, match="toolchain.soc: unknown SoC"):
        saved.resumed({}, {"soc": "Bogus"})
