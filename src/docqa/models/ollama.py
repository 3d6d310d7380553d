"""A local Ollama server: a streaming ``POST $OLLAMA_HOST/api/chat``, read as NDJSON.

Each line is a JSON object; ``message.content`` carries text, the last has ``"done": true`` with
``prompt_eval_count`` (input tokens) and ``eval_count`` (output tokens). The host comes from
``host`` or ``OLLAMA_HOST`` (Ollama's own default, ``http://127.0.0.1:11434``, otherwise); the
model from ``model`` or ``DOCQA_MODEL`` (required); the reply budget from ``max_tokens`` or
``DOCQA_MAX_TOKENS`` is sent as ``options.num_predict`` when set (Ollama's own limit otherwise).
Ollama needs no key. Pass ``http_client`` to use your own ``httpx.Client``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any

import httpx

from docqa.errors import ModelError, ModelTimeout
from docqa.models.base import (
    PieceStream,
    RetryableFailure,
    RetryingClient,
    RetryPolicy,
    setting,
    setting_int,
    status_error,
)
from docqa.models.deadline import deadline_transport
from docqa.types import Prompt, Usage

OLLAMA_DEFAULT_HOST = "http://127.0.0.1:11434"
"""Where Ollama listens unless ``OLLAMA_HOST`` says otherwise (Ollama's documented default)."""


def ollama_host(host: str | None = None) -> str:
    """The server root: ``host``, else ``OLLAMA_HOST``, else the default; ``http://`` added."""
    value = (host or os.environ.get("OLLAMA_HOST", "").strip() or OLLAMA_DEFAULT_HOST).rstrip("/")
    return value if "://" in value else f"http://{value}"


class OllamaModel(RetryingClient):
    """A :class:`~docqa.types.ModelClient` for Ollama's chat API (``timeout`` in seconds)."""

    def __init__(
        self,
        model: str | None = None,
        *,
        max_tokens: int | None = None,
        host: str | None = None,
        timeout: float = 60.0,
        retry: RetryPolicy | None = None,
        http_client: httpx.Client | None = None,
    ) -> None:
        self.name = setting(model, "DOCQA_MODEL", "Ollama model name", "--model")
        wants_limit = max_tokens is not None or os.environ.get("DOCQA_MAX_TOKENS", "").strip()
        limit = setting_int(max_tokens, "DOCQA_MAX_TOKENS", "--max-tokens") if wants_limit else None
        self.max_tokens = limit
        self.host = ollama_host(host)
        self._retry = retry or RetryPolicy()
        self._http = http_client or httpx.Client(
            timeout=timeout, transport=deadline_transport(httpx)
        )

    def __repr__(self) -> str:
        return f"OllamaModel(model={self.name!r}, host={self.host!r})"

    @property
    def _what(self) -> str:
        return f"Ollama model {self.name!r} at {self.host}"

    def _request(self, prompt: Prompt) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.name,
            "messages": [
                {"role": "system", "content": prompt.system},
                {"role": "user", "content": prompt.user},
            ],
            "stream": True,
        }
        if self.max_tokens is not None:
            body["options"] = {"num_predict": self.max_tokens}
        return body

    def _attempt(self, prompt: Prompt) -> PieceStream:
        url, body = f"{self.host}/api/chat", self._request(prompt)
        try:
            with self._http.stream("POST", url, json=body) as r:
                if r.status_code != 200:
                    detail = r.read().decode("utf-8", "replace")
                    retry_after = r.headers.get("retry-after")
                    check = "the server's access settings"
                    raise status_error(r.status_code, retry_after, self._what, detail, check)
                for line in _lines(r.iter_bytes()):
                    record = self._parse(line)
                    if record is None:
                        continue
                    if text := record.get("message", {}).get("content"):
                        yield text
                    if record.get("done"):
                        return _usage(record)
        except httpx.TimeoutException as exc:
            late = f"{self._what}: no reply in time; try again or raise the timeout"
            raise ModelTimeout(late) from exc
        except httpx.TransportError as exc:
            lost = ModelError(f"{self._what}: connection failed or dropped ({type(exc).__name__})")
            raise RetryableFailure(lost) from exc
        raise RetryableFailure(ModelError(f"{self._what}: the stream ended before done"))

    def _parse(self, line: str) -> dict[str, Any] | None:
        if not line.strip():
            return None
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ModelError(f"{self._what}: a reply line is not JSON: {line[:80]!r}") from exc
        if "error" in record:
            raise RetryableFailure(ModelError(f"{self._what}: {str(record['error'])[:300]}"))
        return record  # type: ignore[no-any-return]


def _lines(chunks: Iterator[bytes]) -> Iterator[str]:
    """NDJSON lines decoded strictly: bytes that are not UTF-8 raise UnicodeDecodeError (a
    ModelError from :func:`~docqa.models.base.retrying`), never replacement characters."""
    pending = b""
    for chunk in chunks:
        *lines, pending = (pending + chunk).split(b"\n")
        for line in lines:
            yield line.decode("utf-8")
    if pending:
        yield pending.decode("utf-8")


def _usage(done: dict[str, Any]) -> Usage | None:
    """The counts on Ollama's final line; None when it left them out (a cached prompt)."""
    given, made = done.get("prompt_eval_count"), done.get("eval_count")
    if isinstance(given, int) and isinstance(made, int):
        return Usage(given, made)
    return None
