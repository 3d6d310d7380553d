"""Embedders: the protocol and config registry, the native hashing embedder, TF-IDF.

TF-IDF's module (Numba kernels) loads on first use of ``TfidfEmbedder`` / ``SparseRows`` or
of a TF-IDF config: an index build with the hashing embedder, in every worker process, does
not pay Numba's import (about 100 MB of memory a process).
"""

from typing import TYPE_CHECKING, Any

from docqa.embed.hashing import HashingEmbedder
from docqa.embed.protocol import Embedder, from_config, register_lazy
from docqa.errors import NotFitted
from docqa.text.tokenize import TokenSettings

# Model embedders: their modules (onnxruntime, httpx clients) load only when a config names them.
register_lazy("tfidf", "docqa.embed.tfidf", "TfidfEmbedder")
register_lazy("minilm", "docqa.embed.minilm", "MiniLMEmbedder")
register_lazy("ollama", "docqa.embed.http", "OllamaEmbedder")
register_lazy("openai", "docqa.embed.http", "OpenAIEmbedder")

__all__ = [
    "Embedder",
    "HashingEmbedder",
    "NotFitted",
    "SparseRows",
    "TfidfEmbedder",
    "TokenSettings",
    "from_config",
]

if TYPE_CHECKING:
    from docqa.embed.tfidf import SparseRows, TfidfEmbedder


def __getattr__(name: str) -> Any:
    if name in ("SparseRows", "TfidfEmbedder"):
        from docqa.embed import tfidf

        return getattr(tfidf, name)
    raise AttributeError(f"module 'docqa.embed' has no attribute {name!r}")
