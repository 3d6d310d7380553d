"""Any OpenAI-compatible chat server (OpenAI, vLLM, llama.cpp server, ...) via the ``openai`` SDK.

Sends a system and a user message to ``/chat/completions`` with ``stream=True`` and
``stream_options={"include_usage": True}`` (the usage then arrives in the last chunk).
Configuration: ``base_url`` (argument or ``OPENAI_BASE_URL``; the SDK's own default otherwise),
the model from ``model`` or ``DOCQA_MODEL``, ``max_tokens`` or ``DOCQA_MAX_TOKENS``, the key
from ``api_key`` or ``OPENAI_API_KEY`` (local servers that ignore it still need a non-empty
value). Missing settings raise :class:`ModelConfigError` before any request. The SDK's retries
are off (``max_retries=0``); :func:`docqa.models.base.retrying` does them.
"""

from __future__ import annotations

from docqa.errors import ModelError
from docqa.models.base import PieceStream, RetryableFailure
from docqa.models.sdk_client import SdkClient
from docqa.types import Prompt, Usage

KEY_ENV = "OPENAI_API_KEY"


class OpenAICompatibleModel(SdkClient):
    """A :class:`~docqa.types.ModelClient` for OpenAI-style chat completions (the arguments:
    :class:`~docqa.models.sdk_client.SdkClient`)."""

    EXTRA, CLIENT, KEY_ENV = "openai", "OpenAI", KEY_ENV
    MODEL_WHAT = "chat model name"
    NO_KEY = (
        f"no API key for the OpenAI-compatible server: set {KEY_ENV} "
        "(any non-empty value for a local server that ignores it)"
    )

    def __repr__(self) -> str:
        return f"OpenAICompatibleModel(model={self.name!r}, base_url={self.base_url!r})"

    @property
    def _what(self) -> str:
        return f"model {self.name!r} at {self.base_url}"

    def _attempt(self, prompt: Prompt) -> PieceStream:
        with self._translated():
            chunks = self._client.chat.completions.create(
                model=self.name,
                max_tokens=self.max_tokens,
                messages=[
                    {"role": "system", "content": prompt.system},
                    {"role": "user", "content": prompt.user},
                ],
                stream=True,
                stream_options={"include_usage": True},
            )
            with chunks:
                finished, usage = False, None
                for chunk in chunks:
                    for choice in chunk.choices:
                        if choice.delta.content:
                            yield choice.delta.content
                        finished = finished or choice.finish_reason is not None
                    if chunk.usage is not None:
                        usage = Usage(chunk.usage.prompt_tokens, chunk.usage.completion_tokens)
        if not finished:
            raise RetryableFailure(ModelError(f"{self._what}: the stream ended before finishing"))
        return usage
