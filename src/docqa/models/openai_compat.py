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

from typing import Any

from docqa.errors import ModelError
from docqa.models.base import (
    PieceStream,
    RetryableFailure,
    RetryingClient,
    RetryPolicy,
    sdk,
    sdk_error,
    setting,
    setting_int,
)
from docqa.models.base import (
    api_key as api_key_from,
)
from docqa.models.deadline import deadline_transport
from docqa.types import Prompt, Usage

KEY_ENV = "OPENAI_API_KEY"


class OpenAICompatibleModel(RetryingClient):
    """A :class:`~docqa.types.ModelClient` for OpenAI-style chat completions.

    ``timeout`` is in seconds (connect and each read); ``retry`` is the retry policy;
    ``http_client`` is an ``httpx2.Client`` for the SDK to send through (a mock transport in
    tests, a proxy or custom TLS in production).
    """

    def __init__(
        self,
        model: str | None = None,
        *,
        max_tokens: int | None = None,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = 60.0,
        retry: RetryPolicy | None = None,
        http_client: Any = None,
    ) -> None:
        openai, httpx2 = sdk(("openai", "httpx2"), "openai")
        self.name = setting(model, "DOCQA_MODEL", "chat model name", "--model")
        self.max_tokens = setting_int(max_tokens, "DOCQA_MAX_TOKENS", "--max-tokens")
        key = api_key_from(
            api_key,
            KEY_ENV,
            f"no API key for the OpenAI-compatible server: set {KEY_ENV} "
            "(any non-empty value for a local server that ignores it)",
        )
        self._key = key
        self._retry = retry or RetryPolicy()
        self._sdk = openai
        self._client = openai.OpenAI(
            api_key=key,
            base_url=base_url or None,
            timeout=timeout,
            max_retries=0,
            # An injected client is used as given; our own enforces the answer's overall deadline
            # on every read (see docqa.models.deadline).
            http_client=http_client
            if http_client is not None
            else openai.DefaultHttpxClient(transport=deadline_transport(httpx2)),
        )
        self.base_url = str(self._client.base_url)

    def __repr__(self) -> str:
        return f"OpenAICompatibleModel(model={self.name!r}, base_url={self.base_url!r})"

    @property
    def _what(self) -> str:
        return f"model {self.name!r} at {self.base_url}"

    def _attempt(self, prompt: Prompt) -> PieceStream:
        import httpx2

        try:
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
        except (self._sdk.APIError, httpx2.HTTPError) as exc:
            raise sdk_error(exc, self._sdk, self._what, self._key, KEY_ENV) from exc
        if not finished:
            raise RetryableFailure(ModelError(f"{self._what}: the stream ended before finishing"))
        return usage
