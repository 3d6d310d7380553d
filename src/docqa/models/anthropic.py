"""Claude through the official ``anthropic`` SDK, streamed with ``client.messages.stream``.

Configuration, never invented defaults: the model name from the ``model`` argument or
``DOCQA_MODEL``, the reply budget from ``max_tokens`` or ``DOCQA_MAX_TOKENS``, the key from
``api_key`` or ``ANTHROPIC_API_KEY``. Anything missing is a :class:`ModelConfigError` raised by
the constructor, before any request. The SDK's own retries are off (``max_retries=0``);
:func:`docqa.models.base.retrying` retries 429, 5xx and connection failures.
"""

from __future__ import annotations

from docqa.errors import ModelError
from docqa.models.base import PieceStream, RetryableFailure
from docqa.models.sdk_client import SdkClient
from docqa.types import Prompt, Usage

KEY_ENV = "ANTHROPIC_API_KEY"


class AnthropicModel(SdkClient):
    """A :class:`~docqa.types.ModelClient` for the Anthropic Messages API (the arguments:
    :class:`~docqa.models.sdk_client.SdkClient`)."""

    EXTRA, CLIENT, KEY_ENV = "anthropic", "Anthropic", KEY_ENV
    MODEL_WHAT = "Claude model name"
    NO_KEY = f"no Anthropic API key: set {KEY_ENV} (or pass api_key=...)"

    def __repr__(self) -> str:
        return f"AnthropicModel(model={self.name!r}, max_tokens={self.max_tokens})"

    @property
    def _what(self) -> str:
        return f"Anthropic model {self.name!r}"

    def _attempt(self, prompt: Prompt) -> PieceStream:
        with (
            self._translated(),
            self._client.messages.stream(
                model=self.name,
                max_tokens=self.max_tokens,
                system=prompt.system,
                messages=[{"role": "user", "content": prompt.user}],
            ) as events,
        ):
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
