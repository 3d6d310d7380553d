"""Model clients: one protocol, ``stream(prompt) -> Iterator[str]``.

``FakeModel`` (scripted) and ``ExtractiveModel`` (offline default) import nothing heavy; the
network clients import their SDK only when constructed (``OllamaModel``, over httpx, is
imported on first use).
"""

from typing import TYPE_CHECKING, Any

from docqa.models.anthropic import AnthropicModel
from docqa.models.base import Completion, RetryPolicy, complete, estimate_usage
from docqa.models.extractive import ExtractiveModel
from docqa.models.fake import FakeModel
from docqa.models.openai_compat import OpenAICompatibleModel

if TYPE_CHECKING:  # imported on first use (below)
    from docqa.models.ollama import OllamaModel

__all__ = [
    "AnthropicModel",
    "Completion",
    "ExtractiveModel",
    "FakeModel",
    "OllamaModel",
    "OpenAICompatibleModel",
    "RetryPolicy",
    "complete",
    "estimate_usage",
]


def __getattr__(name: str) -> Any:
    if name == "OllamaModel":
        from docqa.models.ollama import OllamaModel

        return OllamaModel
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
