"""Embedders behind HTTP: a local Ollama server and any OpenAI-compatible embeddings endpoint.

Both send texts in batches (``batch_size`` a request), keep at most ``concurrency`` requests
in flight, retry 429 / 5xx / dropped connections with exponential backoff honouring
``Retry-After`` (``docqa.models.base.RetryPolicy``), time out (``timeout`` seconds), and scale
every row to unit length. Errors name the server and model and say what to do: bad
credentials (``ModelAuthError``), an unknown model, a reply of the wrong shape.

- ``OllamaEmbedder``: ``POST $OLLAMA_HOST/api/embed`` with ``{"model", "input": [...]}``;
  the model from ``model`` or ``OLLAMA_EMBED_MODEL`` (default ``nomic-embed-text``), which
  was trained with the ``search_query: `` / ``search_document: `` prefixes: they are put in
  front of questions and passages for the nomic models (``prefixes`` overrides).
- ``OpenAIEmbedder``: ``POST {base_url}/embeddings`` with ``{"model", "input": [...]}``
  (and ``dimensions`` when set); ``base_url`` from the argument or ``OPENAI_BASE_URL``, model
  from ``DOCQA_EMBED_MODEL``, dims from ``DOCQA_EMBED_DIMS`` (else learnt from one request),
  the key from ``OPENAI_API_KEY`` (never written to the index, a message or a log).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import numpy as np

from docqa._checks import positive
from docqa.embed.protocol import check_version, register
from docqa.errors import ModelError, ModelTimeout
from docqa.models.base import RetryableFailure, RetryPolicy, redact, setting, status_error
from docqa.models.ollama import ollama_host

NOMIC_PREFIXES = ("search_query: ", "search_document: ")
KEY_ENV = "OPENAI_API_KEY"


def unit_rows(rows: Any, n: int, what: str) -> np.ndarray:
    """``rows`` (a list of ``n`` equal-length number lists) as unit-length float32."""
    try:
        out = np.array(rows, dtype=np.float32)
    except (TypeError, ValueError) as exc:
        raise ModelError(f"{what}: the reply's embeddings are not lists of numbers") from exc
    if out.ndim != 2 or len(out) != n or out.shape[1] == 0 or not np.isfinite(out).all():
        raise ModelError(f"{what}: expected {n} embeddings, got an array of shape {out.shape}")
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    return np.ascontiguousarray(out / np.maximum(norms, 1e-12), dtype=np.float32)


class HttpEmbedder:
    """What both HTTP embedders share: batching, bounded concurrency, retries, errors."""

    VERSION = 1
    kind = "http"

    def __init__(
        self,
        model: str,
        url: str,
        *,
        dim: int | None,
        batch_size: int,
        concurrency: int,
        timeout: float,
        retry: RetryPolicy | None,
        http_client: httpx.Client | None,
    ) -> None:
        self.model = model
        self.url = url
        self._dim = None if dim is None else positive(dim, "dims")
        self.batch_size = positive(batch_size, "batch_size")
        self.concurrency = positive(concurrency, "concurrency")
        self._retry = retry or RetryPolicy()
        self._http = http_client or httpx.Client(timeout=timeout)
        self._secret: str | None = None

    @property
    def what(self) -> str:
        return f"{self.kind} embedding model {self.model!r} at {self.url}"

    @property
    def name(self) -> str:
        return f"{self.kind}-{self.model}-v{self.VERSION}"

    @property
    def dim(self) -> int:
        """The vectors' width: given, or learnt from embedding one short text."""
        if self._dim is None:
            self._dim = int(self._post(["dimension probe"]).shape[1])
        return self._dim

    def config(self) -> dict[str, Any]:
        return {"kind": self.kind, "version": self.VERSION, "model": self.model, "dim": self.dim}

    def _body(self, texts: list[str]) -> dict[str, Any]:
        raise NotImplementedError

    def _rows(self, reply: Any, n: int) -> Any:
        raise NotImplementedError

    def _headers(self) -> dict[str, str]:
        return {}

    def _prepare(self, texts: Sequence[str], query: bool) -> list[str]:
        return list(texts)

    def _attempt(self, texts: list[str]) -> np.ndarray:
        try:
            r = self._http.post(self.url, json=self._body(texts), headers=self._headers())
        except httpx.TimeoutException as exc:
            raise ModelTimeout(f"{self.what}: no reply in time; raise the timeout") from exc
        except httpx.TransportError as exc:
            lost = ModelError(f"{self.what}: cannot reach the server ({type(exc).__name__})")
            raise RetryableFailure(lost) from exc
        if r.status_code == 404:
            raise ModelError(
                f"{self.what}: the server does not know this model (HTTP 404: "
                f"{redact(r.text, self._secret)[:200]}); check the model name or pull it"
            )
        if r.status_code != 200:
            detail = redact(r.text, self._secret)
            raise status_error(
                r.status_code, r.headers.get("retry-after"), self.what, detail, "the API key"
            )
        try:
            reply = r.json()
        except ValueError as exc:
            raise ModelError(f"{self.what}: the reply is not JSON") from exc
        return unit_rows(self._rows(reply, len(texts)), len(texts), self.what)

    def _post(self, texts: list[str]) -> np.ndarray:
        """One batch under the retry policy."""
        number = 1
        while True:
            try:
                return self._attempt(texts)
            except RetryableFailure as failure:
                if number >= self._retry.attempts:
                    raise failure.error from None
                self._retry.sleep(self._retry.delay(number, failure.retry_after))
                number += 1

    def embed(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        """``(len(texts), dim)`` float32 unit rows, in the order given."""
        if isinstance(texts, (str, bytes)):
            raise TypeError("texts must be a sequence of str, got a single str; wrap it in a list")
        prepared = self._prepare(texts, query)
        if not prepared:
            return np.zeros((0, self.dim), dtype=np.float32)
        batches = [
            prepared[i : i + self.batch_size] for i in range(0, len(prepared), self.batch_size)
        ]
        with ThreadPoolExecutor(max_workers=min(self.concurrency, len(batches))) as pool:
            parts = list(pool.map(self._post, batches))
        out = np.concatenate(parts)
        if self._dim is not None and out.shape[1] != self._dim:
            raise ModelError(f"{self.what}: vectors of width {out.shape[1]}, expected {self._dim}")
        self._dim = int(out.shape[1])
        return out


@register("ollama")
class OllamaEmbedder(HttpEmbedder):
    kind = "ollama"

    def __init__(
        self,
        model: str | None = None,
        *,
        host: str | None = None,
        dim: int | None = None,
        prefixes: tuple[str, str] | None = None,
        batch_size: int = 32,
        concurrency: int = 2,
        timeout: float = 60.0,
        retry: RetryPolicy | None = None,
        http_client: httpx.Client | None = None,
    ) -> None:
        name = model or os.environ.get("OLLAMA_EMBED_MODEL", "").strip() or "nomic-embed-text"
        url = f"{ollama_host(host)}/api/embed"
        super().__init__(
            name, url, dim=dim, batch_size=batch_size, concurrency=concurrency,
            timeout=timeout, retry=retry, http_client=http_client,
        )  # fmt: skip
        nomic = name.split(":")[0].startswith("nomic-embed-text")
        self.prefixes = prefixes if prefixes is not None else NOMIC_PREFIXES if nomic else ("", "")

    def config(self) -> dict[str, Any]:
        return {**super().config(), "prefixes": list(self.prefixes)}

    @classmethod
    def from_config(
        cls, config: dict[str, Any], state: dict[str, np.ndarray] | None = None
    ) -> OllamaEmbedder:
        check_version(config, "ollama", cls.VERSION)
        prefixes = tuple(config.get("prefixes", ("", "")))
        return cls(config.get("model"), dim=config.get("dim"), prefixes=prefixes)

    def _prepare(self, texts: Sequence[str], query: bool) -> list[str]:
        prefix = self.prefixes[0] if query else self.prefixes[1]
        return [prefix + t for t in texts]

    def _body(self, texts: list[str]) -> dict[str, Any]:
        return {"model": self.model, "input": texts}

    def _rows(self, reply: Any, n: int) -> Any:
        return reply.get("embeddings") if isinstance(reply, dict) else None


@register("openai")
class OpenAIEmbedder(HttpEmbedder):
    kind = "openai"

    def __init__(
        self,
        model: str | None = None,
        *,
        base_url: str | None = None,
        dim: int | None = None,
        api_key: str | None = None,
        batch_size: int = 64,
        concurrency: int = 4,
        timeout: float = 60.0,
        retry: RetryPolicy | None = None,
        http_client: httpx.Client | None = None,
    ) -> None:
        name = setting(model, "DOCQA_EMBED_MODEL", "embedding model", "model=")
        root = setting(base_url, "OPENAI_BASE_URL", "embeddings server URL", "base_url=")
        dims = os.environ.get("DOCQA_EMBED_DIMS", "").strip()
        super().__init__(
            name, f"{root.rstrip('/')}/embeddings", dim=dim or (int(dims) if dims else None),
            batch_size=batch_size, concurrency=concurrency, timeout=timeout, retry=retry,
            http_client=http_client,
        )  # fmt: skip
        self.base_url = root.rstrip("/")
        self._ask_dims = dim is not None or bool(dims)
        self._secret = api_key or os.environ.get(KEY_ENV, "").strip() or None

    def config(self) -> dict[str, Any]:
        return {**super().config(), "base_url": self.base_url}

    @classmethod
    def from_config(
        cls, config: dict[str, Any], state: dict[str, np.ndarray] | None = None
    ) -> OpenAIEmbedder:
        check_version(config, "openai", cls.VERSION)
        return cls(config.get("model"), base_url=config.get("base_url"), dim=config.get("dim"))

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self._secret}"} if self._secret else {}

    def _body(self, texts: list[str]) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model, "input": texts}
        if self._ask_dims and self._dim is not None:
            body["dimensions"] = self._dim
        return body

    def _rows(self, reply: Any, n: int) -> Any:
        data = reply.get("data") if isinstance(reply, dict) else None
        if not isinstance(data, list) or len(data) != n:
            return None
        try:
            ordered = sorted(data, key=lambda d: int(d["index"]))
            return [d["embedding"] for d in ordered]
        except (KeyError, TypeError, ValueError):
            return None
