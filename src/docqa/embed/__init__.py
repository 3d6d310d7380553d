"""Embedders: the protocol and config registry, the native hashing embedder, TF-IDF."""

from docqa.embed.hashing import HashingEmbedder
from docqa.embed.protocol import Embedder, from_config, register_lazy
from docqa.embed.tfidf import SparseRows, TfidfEmbedder
from docqa.errors import NotFitted
from docqa.text.tokenize import TokenSettings

# Model embedders: their modules (onnxruntime, httpx clients) load only when a config names them.
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
