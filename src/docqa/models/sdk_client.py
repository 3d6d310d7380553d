"""What the clients over a vendor SDK (``anthropic``, ``openai``) share: their settings read
once (model, reply budget, key), the SDK's client built with its own retries off and the
answer's overall deadline enforced on every read (:mod:`docqa.models.deadline`), and the SDK's
errors translated (:func:`docqa.models.base.sdk_error`)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from docqa.models.base import (
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


class SdkClient(RetryingClient):
    """A :class:`RetryingClient` over a vendor SDK. A subclass names the SDK (``EXTRA``, also
    the extra that installs it), its client class (``CLIENT``), the key's environment
    variable (``KEY_ENV``), what the model name is (``MODEL_WHAT``) and what to do without a
    key (``NO_KEY``), and reads the stream inside :meth:`_translated`.

    ``base_url`` points the SDK elsewhere (a proxy, a local server, a test's stand-in; empty or
    None: the SDK's default); ``timeout`` is in seconds and applies to connecting and to each
    read; ``retry`` is the retry policy; ``http_client`` is an ``httpx2.Client`` for the SDK to
    send through (a mock transport in tests, a proxy or custom TLS in production). Settings
    not given come from ``DOCQA_MODEL``, ``DOCQA_MAX_TOKENS`` and ``KEY_ENV``; a missing one
    is a ``ModelConfigError`` before any request.
    """

    EXTRA: str
    CLIENT: str
    KEY_ENV: str
    MODEL_WHAT: str
    NO_KEY: str

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
        self._sdk, self._httpx2 = sdk((self.EXTRA, "httpx2"), self.EXTRA)
        self.name = setting(model, "DOCQA_MODEL", self.MODEL_WHAT, "--model")
        self.max_tokens = setting_int(max_tokens, "DOCQA_MAX_TOKENS", "--max-tokens")
        self._key = api_key_from(api_key, self.KEY_ENV, self.NO_KEY)
        self._retry = retry or RetryPolicy()
        if http_client is None:  # ours enforces the answer's overall deadline on every read
            http_client = self._sdk.DefaultHttpxClient(transport=deadline_transport(self._httpx2))
        self._client = getattr(self._sdk, self.CLIENT)(
            api_key=self._key,
            base_url=base_url or None,
            timeout=timeout,
            max_retries=0,
            http_client=http_client,
        )
        self.base_url = str(self._client.base_url)

    @contextmanager
    def _translated(self) -> Iterator[None]:
        """The SDK's and its transport's errors as docqa's (``sdk_error``)."""
        try:
            yield
        except (self._sdk.APIError, self._httpx2.HTTPError) as exc:
            raise sdk_error(exc, self._sdk, self._what, self._key, self.KEY_ENV) from exc
