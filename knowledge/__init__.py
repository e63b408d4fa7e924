"""Knowledge: API cards, concept pages, hardware profiles, the user's documents and past fixes,
searchable offline (exact symbol lookup, then Chroma + MiniLM). Heavy libraries load lazily:
importing this package imports neither chromadb nor sentence-transformers."""
from kernelwright.knowledge.catalog import ApiCatalog, load_catalog
from kernelwright.knowledge.fixes import FixMemory, FixRecord, error_signature
from kernelwright.knowledge.models import KINDS, ApiCard, Chunk, Passage
from kernelwright.knowledge.retriever import IndexRetriever, NullRetriever, Retriever, open_retriever

__all__ = ["KINDS", "ApiCard", "ApiCatalog", "Chunk", "FixMemory", "FixRecord", "IndexRetriever",
           "NullRetriever", "Passage", "Retriever", "error_signature", "load_catalog", "open_retriever"]
