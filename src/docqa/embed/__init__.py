"""Embedders: the protocol and config registry, the native hashing embedder, TF-IDF."""

from docqa.embed.hashing import HashingEmbedder
from docqa.embed.protocol import Embedder, from_config
from docqa.embed.tfidf import SparseRows, TfidfEmbedder
from docqa.errors import NotFitted
from docqa.text.tokenize import TokenSettings

__all__ = [
    "Embedder",
    "HashingEmbedder",
    "NotFitted",
    "SparseRows",
    "TfidfEmbedder",
    "TokenSettings",
    "from_config",
]
