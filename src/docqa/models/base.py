"""What every model client shares: joining a stream, usage estimates, one retry policy.

A client's ``stream(prompt)`` is a generator of text pieces. A client that learns the real token
counts from its backend returns them as the generator's return value (``return Usage(...)``);
:func:`complete` reads that value, or estimates both counts at 4 characters a token and marks
the usage ``estimated=True``.

Retries live in one place, :func:`retrying`: the official SDKs are built with their own retries
switched off (``max_retries=0``). A failed attempt is retried only when it failed before the
first text piece was yielded; once text has gone out, a failure is a
:class:`~docqa.errors.ModelStreamBroken` (retrying would repeat text the caller already has).
"""

from __future__ import annotations

import importlib
import math
import os
import time
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from types import ModuleType

from docqa.errors import (
    InputError,
    ModelAuthError,
    ModelConfigError,
    ModelError,
    ModelRateLimited,
    ModelStreamBroken,
    ModelTimeout,
)
from docqa.models.deadline import remaining, with_deadline
from docqa.types import ModelClient, Prompt, Usage

CHARS_PER_TOKEN = 4
"""Characters per token used when a backend does not report its counts."""

PieceStream = Generator[str, None, Usage | None]
"""A model stream: yields text pieces, returns the backend's Usage (or None)."""


@dataclass(frozen=True, slots=True)
class Completion:
    """A joined stream: the whole reply text and its token usage."""

    text: str
    usage: Usage


def estimate_tokens(text: str) -> int:
    """Tokens in ``text`` at 4 characters a token, rounded up (0 for the empty string)."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def estimate_usage(prompt: Prompt, text: str) -> Usage:
    """Usage estimated from the prompt (system + user) and the reply text."""
    return Usage(
        input_tokens=estimate_tokens(prompt.system) + estimate_tokens(prompt.user),
        output_tokens=estimate_tokens(text),
        estimated=True,
    )


def join_pieces(pieces: Iterator[str], prompt: Prompt) -> Generator[str, None, Completion]:
    """Pass ``pieces`` through; return the joined text with the reported (or estimated) usage."""
    seen: list[str] = []
    while True:
        try:
            piece = next(pieces)
        except StopIteration as stop:
            text = "".join(seen)
            reported = stop.value
            usage = reported if isinstance(reported, Usage) else estimate_usage(prompt, text)
            return Completion(text, usage)
        seen.append(piece)
        yield piece


def complete(model: ModelClient, prompt: Prompt) -> Completion:
    """Run ``model.stream(prompt)`` to the end; the joined text and its (maybe estimated) usage."""
    joined = join_pieces(model.stream(prompt), prompt)
    while True:
        try:
            next(joined)
        except StopIteration as stop:
            return stop.value  # type: ignore[no-any-return]


class RetryableFailure(Exception):
    """Raised by a client's single attempt when trying again may help (429, 5xx, no connection).

    ``error`` is what the caller gets once the retries are spent; ``retry_after`` is the delay
    in seconds the backend asked for (``Retry-After``), or None.
    """

    def __init__(self, error: ModelError, retry_after: float | None = None) -> None:
        super().__init__(str(error))
        self.error = error
        self.retry_after = retry_after


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """Bounded retries with exponential backoff.

    ``attempts`` counts the first try (1 = never retry). The delay before retry ``n`` (1-based)
    is ``base_delay * 2**(n - 1)``, or the backend's ``Retry-After`` when it gave one, capped at
    ``max_delay`` seconds. ``sleep`` is injectable so tests do not wait. ``answer_deadline``
    bounds one whole answer, every attempt and wait included, in seconds (None: no bound):
    see :mod:`docqa.models.deadline`.
    """

    attempts: int = 3
    base_delay: float = 0.5
    max_delay: float = 30.0
    sleep: Callable[[float], None] = time.sleep
    answer_deadline: float | None = 300.0

    def __post_init__(self) -> None:
        if self.attempts < 1:
            raise InputError(f"RetryPolicy.attempts must be at least 1, got {self.attempts}")
        if self.answer_deadline is not None and not self.answer_deadline > 0:
            raise InputError(
                f"RetryPolicy.answer_deadline must be > 0 seconds or None, "
                f"got {self.answer_deadline!r}"
            )

    def delay(self, retry: int, retry_after: float | None) -> float:
        """Seconds to wait before retry number ``retry`` (1-based)."""
        wanted = self.base_delay * 2 ** (retry - 1) if retry_after is None else retry_after
        return min(max(wanted, 0.0), self.max_delay)


def retrying(attempt: Callable[[], PieceStream], policy: RetryPolicy, what: str) -> PieceStream:
    """Run ``attempt()`` until one finishes, retrying :class:`RetryableFailure` per ``policy``.

    ``what`` names the backend in error messages. Returns the successful attempt's usage.
    Bytes that are not UTF-8 in a reply are a ModelError (not retried).
    """
    number = 1
    while True:
        started = False
        try:
            pieces = attempt()
            while True:
                try:
                    piece = next(pieces)
                except StopIteration as stop:
                    usage: Usage | None = stop.value
                    return usage
                started = True
                yield piece
        except UnicodeDecodeError as exc:
            raise ModelError(
                f"{what}: the reply is not valid UTF-8 (byte 0x{exc.object[exc.start]:02x}); "
                "check the server or its proxy"
            ) from None
        except RetryableFailure as failure:
            if started:
                raise ModelStreamBroken(
                    f"{what}: the stream broke after part of the reply ({failure.error}); "
                    "the partial text is not an answer, ask again"
                ) from failure
            left = remaining()
            if number >= policy.attempts or (left is not None and left <= 0):
                raise failure.error from failure
            wait = policy.delay(number, failure.retry_after)
            policy.sleep(wait if left is None else min(wait, left))
            number += 1


def parse_retry_after(value: str | None) -> float | None:
    """Seconds from a ``Retry-After`` header given in seconds; None when absent or a date."""
    if value is None:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        return None


def redact(text: str, secret: str | None) -> str:
    """``text`` with every occurrence of ``secret`` replaced by ``***``."""
    return text.replace(secret, "***") if secret else text


def setting(given: str | None, env: str, what: str, flag: str) -> str:
    """``given``, else the environment variable ``env``; a ModelConfigError when neither is set."""
    value = given or os.environ.get(env, "").strip()
    if not value:
        raise ModelConfigError(f"no {what} configured: pass {flag} or set {env}")
    return value


def sdk(names: tuple[str, ...], extra: str) -> tuple[ModuleType, ...]:
    """Import the SDK modules ``names`` of a backend; ``ModelConfigError`` naming the install
    command (``pip install 'docqa[EXTRA]'``) when one of them is missing or broken."""
    try:
        return tuple(importlib.import_module(name) for name in names)
    except ImportError as exc:
        raise ModelConfigError(
            f"the {extra} backend needs the {exc.name or names[0]} package, which is not "
            f"installed or fails to import; install it with `pip install 'docqa[{extra}]'`"
        ) from exc


def api_key(given: str | None, env: str, missing: str) -> str:
    """``given``, else the environment variable ``env``; ``missing`` is the ModelConfigError's
    message when neither is set (the key itself never appears in any message)."""
    key = given or os.environ.get(env, "").strip()
    if not key:
        raise ModelConfigError(missing)
    return key


class RetryingClient:
    """The ``stream`` shared by the network clients: each ``_attempt`` runs under the one
    retry policy (``_retry``), described in errors as ``_what``."""

    _retry: RetryPolicy

    @property
    def _what(self) -> str:
        raise NotImplementedError

    def _attempt(self, prompt: Prompt) -> PieceStream:
        raise NotImplementedError

    def stream(self, prompt: Prompt) -> PieceStream:
        """Yield the reply's text pieces as they arrive; return the Usage the backend
        reported, if any."""
        attempts = retrying(lambda: self._attempt(prompt), self._retry, self._what)
        return with_deadline(attempts, self._retry.answer_deadline, self._what)


def setting_int(given: int | None, env: str, flag: str) -> int:
    """A positive integer from ``given`` or ``env``; ModelConfigError when missing or invalid."""
    raw = str(given) if given is not None else os.environ.get(env, "").strip()
    if not raw:
        raise ModelConfigError(f"no maximum reply length configured: pass {flag} or set {env}")
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if value < 1:
        raise ModelConfigError(f"{env}/{flag} must be a positive integer, got {raw!r}")
    return value


def status_error(
    status: int, retry_after: str | None, what: str, detail: str, check: str
) -> Exception:
    """The docqa error for an HTTP error status from a model backend.

    401/403 -> ModelAuthError (``check`` names the setting to check); 429 -> a retryable
    ModelRateLimited honouring ``Retry-After``; 5xx -> a retryable ModelError; any other status
    -> ModelError. ``detail`` (the backend's message) must already be redacted.
    """
    detail = detail[:300]
    if status in (401, 403):
        refused = f"{what}: the backend refused the credentials (HTTP {status}); check {check}"
        return ModelAuthError(refused)
    if status == 429:
        error = ModelRateLimited(
            f"{what}: still rate limited (HTTP 429) after the retries; wait and try again"
        )
        return RetryableFailure(error, parse_retry_after(retry_after))
    if status >= 500:
        return RetryableFailure(ModelError(f"{what}: server error HTTP {status}: {detail}"))
    return ModelError(f"{what}: request rejected with HTTP {status}: {detail}")


def sdk_error(exc: Exception, sdk: ModuleType, what: str, key: str, key_env: str) -> Exception:
    """Translate an exception from the anthropic / openai SDK (or their httpx2 transport).

    Both SDKs share the names ``APITimeoutError``, ``APIConnectionError`` and ``APIStatusError``;
    errors raised while reading a stream come straight from ``httpx2``.
    """
    import httpx2

    if isinstance(exc, sdk.APITimeoutError | httpx2.TimeoutException):
        return ModelTimeout(f"{what}: no reply in time; try again or raise the timeout")
    if isinstance(exc, sdk.APIConnectionError | httpx2.TransportError):
        lost = ModelError(f"{what}: connection failed or dropped ({type(exc).__name__})")
        return RetryableFailure(lost)
    if isinstance(exc, sdk.APIStatusError):
        retry_after = exc.response.headers.get("retry-after")
        return status_error(exc.status_code, retry_after, what, redact(str(exc), key), key_env)
    return ModelError(f"{what}: {type(exc).__name__}: {redact(str(exc), key)[:300]}")
