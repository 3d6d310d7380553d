"""The Anthropic, OpenAI-compatible and Ollama clients against a stand-in server on 127.0.0.1.

Every test runs for all three wire formats: the request sent, the pieces received, and the
failures (401, 429 + Retry-After, 500, a dropped stream, a stream without its end, a timeout).
"""

from __future__ import annotations

import logging
import socket

import pytest
from backends import BACKENDS, KEY, MODEL, Backend, error_reply
from standin import Reply, StandIn

from docqa.errors import (
    ModelAuthError,
    ModelError,
    ModelRateLimited,
    ModelStreamBroken,
    ModelTimeout,
)
from docqa.models.base import RetryPolicy, complete
from docqa.types import Prompt, Usage

PROMPT = Prompt(system="SYSTEM RULES", user="USER TEXT")

pytestmark = pytest.mark.parametrize("backend", BACKENDS, ids=[b.name for b in BACKENDS])


@pytest.fixture(autouse=True)
def environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "DOCQA_MODEL",
        "DOCQA_MAX_TOKENS",
        "OLLAMA_HOST",
        "ANTHROPIC_AUTH_TOKEN",
        "ANTHROPIC_BASE_URL",
        "OPENAI_BASE_URL",
        "DOCQA_PRICES",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)


def test_streams_pieces_and_reports_usage(
    backend: Backend, server: StandIn, policy: RetryPolicy
) -> None:
    server.script = [backend.ok(["Loans ", "last ", "21 days."], usage=(40, 9))]
    client = backend.make(server.url, policy)
    stream = client.stream(PROMPT)
    assert list(stream) == ["Loans ", "last ", "21 days."]
    server.script = [backend.ok(["Loans ", "last ", "21 days."], usage=(40, 9))]
    assert complete(client, PROMPT).usage == Usage(40, 9)
    assert len(server.requests) == 2
    backend.check(server.requests[0], 64)


def test_401_is_an_auth_error_without_retries_or_the_key(
    backend: Backend, server: StandIn, policy: RetryPolicy, sleeps: list[float]
) -> None:
    server.script = [error_reply(401)] * 3
    client = backend.make(server.url, policy)
    with pytest.raises(ModelAuthError) as caught:
        list(client.stream(PROMPT))
    assert len(server.requests) == 1 and sleeps == []
    assert MODEL in str(caught.value)
    for text in (str(caught.value), repr(caught.value), repr(client)):
        assert KEY not in text


def test_429_honours_retry_after_then_succeeds(
    backend: Backend, server: StandIn, policy: RetryPolicy, sleeps: list[float]
) -> None:
    limited = error_reply(429, {"retry-after": "2"})
    server.script = [limited, limited, backend.ok(["fine"])]
    assert list(backend.make(server.url, policy).stream(PROMPT)) == ["fine"]
    assert sleeps == [2.0, 2.0]
    assert len(server.requests) == 3


def test_429_retries_are_bounded_with_backoff(
    backend: Backend, server: StandIn, policy: RetryPolicy, sleeps: list[float]
) -> None:
    server.script = [error_reply(429)] * 5
    with pytest.raises(ModelRateLimited, match="429"):
        list(backend.make(server.url, policy).stream(PROMPT))
    assert len(server.requests) == 3
    assert sleeps == [0.01, 0.02]


def test_500_is_retried_then_reported(
    backend: Backend, server: StandIn, policy: RetryPolicy, sleeps: list[float]
) -> None:
    server.script = [error_reply(500), backend.ok(["ok"])]
    assert list(backend.make(server.url, policy).stream(PROMPT)) == ["ok"]
    server.script = [error_reply(500)] * 3
    with pytest.raises(ModelError, match="500") as caught:
        list(backend.make(server.url, policy).stream(PROMPT))
    assert type(caught.value) is ModelError
    assert len(server.requests) == 2 + 3


def test_400_is_not_retried(
    backend: Backend, server: StandIn, policy: RetryPolicy, sleeps: list[float]
) -> None:
    server.script = [error_reply(400)] * 3
    with pytest.raises(ModelError, match="400"):
        list(backend.make(server.url, policy).stream(PROMPT))
    assert len(server.requests) == 1 and sleeps == []


def test_connection_dropped_mid_stream_is_a_broken_stream(
    backend: Backend, server: StandIn, policy: RetryPolicy
) -> None:
    reply = backend.ok(["Books may ", "be kept ", "for 21 days."])
    reply.drop_after = next(n for n, p in enumerate(reply.pieces) if b"for 21 days." in p)
    server.script = [reply, backend.ok(["must not be asked for"])]
    received: list[str] = []
    with pytest.raises(ModelStreamBroken, match="not an answer"):
        for piece in backend.make(server.url, policy).stream(PROMPT):
            received.append(piece)  # noqa: PERF402 (collects until the stream breaks)
    assert received == ["Books may ", "be kept "]
    assert len(server.requests) == 1  # text went out, so no retry that would repeat it


def test_a_drop_before_any_text_is_retried(
    backend: Backend, server: StandIn, policy: RetryPolicy, sleeps: list[float]
) -> None:
    dropped = backend.ok(["lost"])
    dropped.drop_after = 0
    server.script = [dropped, backend.ok(["whole"])]
    assert list(backend.make(server.url, policy).stream(PROMPT)) == ["whole"]
    assert len(sleeps) == 1


def test_a_stream_without_its_end_marker_is_broken(
    backend: Backend, server: StandIn, policy: RetryPolicy
) -> None:
    server.script = [backend.ok(["half an ", "answer"], stop=False)]
    with pytest.raises(ModelStreamBroken):
        complete(backend.make(server.url, policy), PROMPT)


def test_a_stalled_stream_is_a_timeout(
    backend: Backend, server: StandIn, policy: RetryPolicy
) -> None:
    server.script = [Reply(headers={"content-type": "text/event-stream"}, stall=True)]
    with pytest.raises(ModelTimeout, match="no reply in time"):
        list(backend.make(server.url, policy, timeout=0.3).stream(PROMPT))


def test_unreachable_server_is_a_model_error_after_retries(
    backend: Backend, policy: RetryPolicy, sleeps: list[float]
) -> None:
    with socket.socket() as sock:  # a port that was free a moment ago and has no listener
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    with pytest.raises(ModelError, match="connection"):
        list(backend.make(url, policy).stream(PROMPT))
    assert len(sleeps) == 2


def test_the_key_is_never_logged(
    backend: Backend, server: StandIn, policy: RetryPolicy, caplog: pytest.LogCaptureFixture
) -> None:
    server.script = [error_reply(401), backend.ok(["x"])]
    client = backend.make(server.url, policy)
    with caplog.at_level(logging.DEBUG):
        with pytest.raises(ModelAuthError):
            list(client.stream(PROMPT))
        list(client.stream(PROMPT))
    assert caplog.records
    assert KEY not in caplog.text
