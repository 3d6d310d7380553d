"""The embedders ``docqa index --embedder NAME`` can build, by name.

``make_embedder(name, dim=...)`` builds one; the costly kinds (a local model, an HTTP API)
come wrapped in the persistent embedding cache (``docqa.embed.cache``), so re-indexing embeds
only texts never embedded before by the same model. Heavy modules load only when chosen.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from docqa.embed.hashing import HashingEmbedder
from docqa.embed.protocol import Embedder
from docqa.errors import InputError

if TYPE_CHECKING:
    from docqa.embed.tfidf import TfidfEmbedder

EMBEDDERS = ("hashing", "tfidf", "minilm", "ollama", "openai")
COSTLY = ("minilm", "ollama", "openai")
AUTO = "auto"
"""``docqa index --embedder auto`` (the default): the embedder of the index being updated; for
a new index MiniLM when it is installed (the better ranking: README, "Figures"), else hashing."""


def resolve(name: str, previous: str | None) -> str:
    """The embedder ``name`` stands for: itself, or for :data:`AUTO` the ``previous`` index's
    kind when there is one, else ``"minilm"`` when installed, else ``"hashing"``."""
    if name != AUTO:
        return name
    if previous in EMBEDDERS:
        return previous
    from docqa.embed import minilm

    return "minilm" if minilm.available() else "hashing"


def make_model_embedder(name: str) -> Embedder:
    """The uncached embedder of a costly kind."""
    if name == "minilm":
        from docqa.embed import minilm

        return minilm.shared()
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


_MODEL_ENV = {"ollama": "OLLAMA_EMBED_MODEL", "openai": "DOCQA_EMBED_MODEL"}


def index_command(config: Mapping[str, Any], index: str = "DIR") -> str | None:
    """The ``docqa index`` command (in backticks) that builds an index at ``index`` with the
    embedder ``config`` describes, e.g. ```docqa index FOLDER --index ix --embedder hashing
    --dim 256```, with the environment variable naming a served model after it; None when
    no command line builds that embedder (hashing with other token settings, an unknown kind)."""
    kind = config.get("kind")
    command = f"`docqa index FOLDER --index {index} --embedder {kind}"
    if kind == "hashing":
        dim = config.get("dim")
        if not isinstance(dim, int) or HashingEmbedder(dim).config() != dict(config):
            return None
        return f"{command} --dim {dim}`"
    if kind in _MODEL_ENV:
        return f"{command}` with {_MODEL_ENV[kind]}={config.get('model')}"
    return f"{command}`" if kind in ("tfidf", "minilm") else None
