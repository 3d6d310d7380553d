"""Model clients: one protocol, ``stream(prompt) -> Iterator[str]``.

``FakeModel`` (scripted) and ``ExtractiveModel`` (offline default) import nothing heavy; the
network clients import their SDK only when constructed.
"""

from docqa.models.anthropic import AnthropicModel
from docqa.models.base import Completion, RetryPolicy, complete, estimate_usage
from docqa.models.extractive import ExtractiveModel
from docqa.models.fake import FakeModel
from docqa.models.ollama import OllamaModel
from docqa.models.openai_compat import OpenAICompatibleModel

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
