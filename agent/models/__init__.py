"""Model adapters behind the `ChatModel` seam, and `models_for(config)`: the model of each node.

`builtin` means no model (the builtin writer plans and writes; holes and repairs are not possible);
`replay:FILE` plays a transcript back (one instance shared by every node, as the recording
interleaves them); `langchain:<provider>:<model>` is a LangChain chat model made by `init_chat_model`;
anything else is a litellm model name. `as_chat_model` admits a LangChain `BaseChatModel` instance."""
from __future__ import annotations

from pathlib import Path

from kernelwright.agent.config import NODES, ModelsConfig
from kernelwright.agent.models.base import (ChatModel, Message, ModelError, Reply, TranscriptDiverged, Usage,
                                            estimated_usage)
from kernelwright.agent.models.langchain_model import PREFIX as LANGCHAIN, LangchainModel, from_name, \
    is_langchain_chat_model
from kernelwright.agent.models.recorder import RecordingModel
from kernelwright.agent.models.replay import ReplayModel
from kernelwright.agent.models.scripted import ScriptedModel

BUILTIN = "builtin"


def models_for(config: ModelsConfig) -> dict[str, ChatModel | None]:
    """node -> model (None where no model is configured or `builtin` is asked for)."""
    shared: dict[str, ChatModel] = {}
    out: dict[str, ChatModel | None] = {}
    for node in NODES:
        mc = config.for_node(node)
        if not mc.name or mc.name == BUILTIN:
            out[node] = None
            continue
        key = mc.name if mc.name.startswith("replay:") else mc.model_dump_json()
        if key not in shared:
            if mc.name.startswith("replay:"):
                shared[key] = ReplayModel(Path(mc.name.split(":", 1)[1]))
            elif mc.name.startswith(LANGCHAIN):
                shared[key] = from_name(mc.name)
            else:
                from kernelwright.agent.models.litellm_model import LitellmModel
                shared[key] = LitellmModel(mc)
        out[node] = shared[key]
    return out


def as_chat_model(model: object) -> ChatModel | None:
    """A model passed in by a caller: a `ChatModel` as it is, a LangChain chat model behind the seam."""
    if model is not None and is_langchain_chat_model(model):
        return LangchainModel(model)
    return model  # type: ignore[return-value]


__all__ = ["BUILTIN", "ChatModel", "LangchainModel", "Message", "ModelError", "RecordingModel", "Reply", "ReplayModel",
           "ScriptedModel", "as_chat_model",
           "TranscriptDiverged", "Usage", "estimated_usage", "models_for"]
