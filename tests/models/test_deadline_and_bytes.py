"""Class 5 and 7 for the model clients: keep-alives cannot hold an answer open past its
deadline, and bytes that are not UTF-8 in a reply are one clear ModelError."""

from __future__ import annotations

import dataclasses
import time

import pytest
from backends import BACKENDS, KEY, Backend
from standin import StandIn

from docqa.errors import InputError, ModelError, ModelTimeout
from docqa.models.base import RetryPolicy, complete
from docqa.types import Prompt

PROMPT = Prompt(system="SYSTEM RULES", user="USER TEXT")
KEEPALIVE = {"anthropic": b": ping\n\n", "openai": b": keep-alive\n\n", "ollama": b"\n"}

pytestmark = pytest.mark.parametrize("backend", BACKENDS, ids=[b.name for b in BACKENDS])


@pytest.fixture(autouse=True)
def environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("DOCQA_MODEL", "DOCQA_MAX_TOKENS", "OLLAMA_HOST", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)


def test_keepalives_forever_end_at_the_answer_deadline(
    backend: Backend, server: StandIn, policy: RetryPolicy
) -> None:
    reply = backend.ok(["Half an answer"], stop=False)
    server.script = [dataclasses.replace(reply, keepalive=KEEPALIVE[backend.name])]
    client = backend.make(server.url, dataclasses.replace(policy, answer_deadline=1.5))
    started = time.monotonic()
    with pytest.raises(ModelTimeout, match="no complete answer within the deadline of 1.5 s"):
        complete(client, PROMPT)
    assert time.monotonic() - started < 5.0  # the read timeout is 5 s: the deadline ended it
    assert len(server.requests) <= 1  # a deadline is not retried


def test_a_deadline_long_enough_changes_nothing(
    backend: Backend, server: StandIn, policy: RetryPolicy
) -> None:
    server.script = [backend.ok(["Loans ", "last 21 days."])]
    client = backend.make(server.url, dataclasses.replace(policy, answer_deadline=30.0))
    assert complete(client, PROMPT).text == "Loans last 21 days."


def test_invalid_utf8_in_a_reply_is_a_model_error(
    backend: Backend, server: StandIn, policy: RetryPolicy
) -> None:
    reply = backend.ok(["MARK"])
    pieces = [p.replace(b"MARK", b"MA\xff\xfeRK") for p in reply.pieces]
    server.script = [dataclasses.replace(reply, pieces=pieces)]
    client = backend.make(server.url, policy)
    with pytest.raises(ModelError, match=r"the reply is not valid UTF-8 \(byte 0xff\)") as info:
        complete(client, PROMPT)
    assert KEY not in str(info.value) and len(server.requests) == 1


def test_a_bad_deadline_is_refused(backend: Backend) -> None:
    with pytest.raises(InputError, match="answer_deadline must be > 0"):
        RetryPolicy(answer_deadline=0)
