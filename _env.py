"""Offline-safe defaults for the libraries we load lazily (set before any of them is imported).

litellm fetches a price map from GitHub at import and reads `.env` files; Chroma and the
Hugging Face stack would try to reach hubs. Users can still override each variable.
"""
import os

_OFFLINE_DEFAULTS = {
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "LITELLM_MODE": "PRODUCTION",
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_HUB_DISABLE_PROGRESS_BARS": "1",
    "TOKENIZERS_PARALLELISM": "false",
    "ANONYMIZED_TELEMETRY": "False",
}

for _key, _value in _OFFLINE_DEFAULTS.items():
    os.environ.setdefault(_key, _value)
