"""Claude through the official ``anthropic`` SDK, streamed with ``client.messages.stream``.

Configuration, never invented defaults: the model name from the ``model`` argument or
``DOCQA_MODEL``, the reply budget from ``max_tokens`` or ``DOCQA_MAX_TOKENS``, the key from
``api_key`` or ``ANTHROPIC_API_KEY``. Anything missing is a :class:`ModelConfigError` raised by
the constructor, before any request. The SDK's own retries are off (``max_retries=0``);
:func:`docqa.models.base.retrying` retries 429, 5xx and connection failures.
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

KEY_ENV = "ANTHROPIC_API_KEY"


class AnthropicModel(RetryingClient):
    """A :class:`~docqa.types.ModelClient` for the Anthropic Messages API.

    ``base_url`` points the SDK elsewhere (a proxy, or a test's stand-in server); ``timeout``
    is in seconds and applies to connecting and to each read; ``retry`` is the retry policy;
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
        anthropic, httpx2 = sdk(("anthropic", "httpx2"), "anthropic")
        self.name = setting(model, "DOCQA_MODEL", "Claude model name", "--model")
        self.max_tokens = setting_int(max_tokens, "DOCQA_MAX_TOKENS", "--max-tokens")
        key = api_key_from(
            api_key, KEY_ENV, f"no Anthropic API key: set {KEY_ENV} (or pass api_key=...)"
        )
        self._key = key
        self._retry = retry or RetryPolicy()
        self._sdk = anthropic
        self._client = anthropic.Anthropic(
            api_key=key,
            base_url=base_url,
            timeout=timeout,
            max_retries=0,
            # An injected client is used as given; our own enforces the answer's overall deadline
            # on every read (see docqa.models.deadline).
            http_client=http_client
            if http_client is not None
            else anthropic.DefaultHttpxClient(transport=deadline_transport(httpx2)),
        )

    def __repr__(self) -> str:
        return f"AnthropicModel(model={self.name!r}, max_tokens={self.max_tokens})"

    @property
    def _what(self) -> str:
        return f"Anthropic model {self.name!r}"

    def _attempt(self, prompt: Prompt) -> PieceStream:
        import httpx2

        try:
            with self._client.messages.stream(
                model=self.name,
                max_tokens=self.max_tokens,
                system=prompt.system,
                messages=[{"role": "user", "content": prompt.user}],
            ) as events:
                finished = False
                for event in events:
                    if event.type == "content_block_delta" and event.delta.type == "text_delta":
                        yield event.delta.text
                    finished = finished or event.type == "message_stop"
                if not finished:
                    lost = ModelError(f"{self._what}: the stream ended before message_stop")
                    raise RetryableFailure(lost)
                usage = events.get_final_message().usage
                return Usage(usage.input_tokens, usage.output_tokens)
        except (self._sdk.APIError, httpx2.HTTPError) as exc:
            raise sdk_error(exc, self._sdk, self._what, self._key, KEY_ENV) from exc
