"""An overall deadline per answer, checked on every network read (keep-alives included).

A per-read timeout does not bound an answer: a server that sends a keep-alive (an SSE comment,
a blank NDJSON line) every few seconds keeps every read short and the answer waiting forever.
:func:`with_deadline` gives one answer (all its attempts and retry waits) a monotonic end time,
held in a thread-local while the answer's generator runs; the HTTP transport made by
:func:`deadline_transport` checks it whenever a request is sent or a body chunk arrives and
raises the library's ``ReadTimeout`` once it has passed, which each client turns into a
:class:`~docqa.errors.ModelTimeout`. The thread-local makes one client safe to share between
threads: each answer sees only its own deadline.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Generator, Iterator
from functools import cache
from types import ModuleType
from typing import Any

from docqa.errors import ModelTimeout
from docqa.types import Usage

_local = threading.local()


def remaining() -> float | None:
    """Seconds left before the running answer's deadline (None when it has none)."""
    ends: float | None = getattr(_local, "ends", None)
    return None if ends is None else ends - time.monotonic()


Stream = Generator[str, None, Usage | None]


def with_deadline(pieces: Stream, seconds: float | None, what: str) -> Stream:
    """Pass ``pieces`` through (returning its Usage); past ``seconds`` from the first step,
    raise ModelTimeout."""
    if seconds is None:
        return (yield from pieces)
    ends = time.monotonic() + seconds
    while True:
        before = getattr(_local, "ends", None)
        _local.ends = ends
        try:
            piece = next(pieces)
        except StopIteration as stop:
            usage: Usage | None = stop.value
            return usage
        except ModelTimeout as exc:
            if time.monotonic() < ends:
                raise
            raise ModelTimeout(
                f"{what}: no complete answer within the deadline of {seconds:g} s; "
                "try again or allow more time (`docqa ask QUESTION --answer-deadline 600`, "
                "RetryPolicy.answer_deadline)"
            ) from exc
        finally:
            _local.ends = before
        yield piece


def _passed() -> bool:
    left = remaining()
    return left is not None and left <= 0


@cache
def _classes(httpx: ModuleType) -> tuple[type[Any], type[Any]]:
    """A transport and a body stream for ``httpx`` (the httpx module or the SDKs' fork)."""

    class DeadlineStream(httpx.SyncByteStream):  # type: ignore[misc, name-defined]
        def __init__(self, inner: Any) -> None:
            self._inner = inner

        def __iter__(self) -> Iterator[bytes]:
            for chunk in self._inner:
                if _passed():
                    raise httpx.ReadTimeout("the answer's overall deadline passed")
                yield chunk

        def close(self) -> None:
            self._inner.close()

    class DeadlineTransport(httpx.BaseTransport):  # type: ignore[misc, name-defined]
        def __init__(self, inner: Any) -> None:
            self._inner = inner

        def handle_request(self, request: Any) -> Any:
            if _passed():
                raise httpx.ConnectTimeout("the answer's overall deadline passed")
            response = self._inner.handle_request(request)
            return httpx.Response(
                status_code=response.status_code,
                headers=response.headers,
                stream=DeadlineStream(response.stream),
                extensions=response.extensions,
                request=request,
            )

        def close(self) -> None:
            self._inner.close()

    return DeadlineTransport, DeadlineStream


def deadline_transport(httpx: ModuleType, inner: Any = None) -> Any:
    """An ``httpx`` transport over ``inner`` (default ``HTTPTransport()``) that enforces the
    running answer's deadline."""
    transport, _ = _classes(httpx)
    return transport(inner if inner is not None else httpx.HTTPTransport())
