"""The embedders ``docqa index --embedder NAME`` can build, by name.

``make_embedder(name, dim=...)`` builds one; the costly kinds (a local model, an HTTP API)
come wrapped in the persistent embedding cache (``docqa.embed.cache``), so re-indexing embeds
only texts never embedded before by the same model. Heavy modules load only when chosen.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from docqa.embed.hashing import HashingEmbedder
from docqa.embed.protocol import Embedder
from docqa.errors import InputError

if TYPE_CHECKING:
    from docqa.embed.tfidf import TfidfEmbedder

EMBEDDERS = ("hashing", "tfidf", "minilm", "ollama", "openai")
COSTLY = ("minilm", "ollama", "openai")


def make_model_embedder(name: str) -> Embedder:
    """The uncached embedder of a costly kind."""
    if name == "minilm":
        from docqa.embed.minilm import MiniLMEmbedder

        return MiniLMEmbedder()
    from docqa.embed.http import OllamaEmbedder, OpenAIEmbedder

    return OllamaEmbedder() if name == "ollama" else OpenAIEmbedder()


def make_embedder(name: str, *, dim: int = 256, cache: bool = True) -> Embedder | TfidfEmbedder:
    """The embedder ``name`` (one of ``EMBEDDERS``); ``dim`` is the hashing width."""
    if name == "hashing":
        return HashingEmbedder(dim)
    if name == "tfidf":
        from docqa.embed.tfidf import TfidfEmbedder

        return TfidfEmbedder()
    if name not in COSTLY:
        raise InputError(f"unknown embedder {name!r}; choose one of {', '.join(EMBEDDERS)}")
    inner = make_model_embedder(name)
    if not cache:
        return inner
    from docqa.embed.cache import CachedEmbedder, EmbeddingCache

    return CachedEmbedder(inner, EmbeddingCache())
