"""The SDK clients send through an injected ``httpx2.Client``: a mock transport, no server."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx2
import pytest
from backends import KEY, MODEL, anthropic_ok, openai_ok
from standin import Reply

from docqa.errors import ModelAuthError
from docqa.models import AnthropicModel, OpenAICompatibleModel
from docqa.models.base import RetryPolicy, complete
from docqa.types import ModelClient, Prompt, Usage

PROMPT = Prompt(system="Answer from the passages.", user="<passage>x</passage> Q?")
NO_RETRY = RetryPolicy(attempts=1)


class Recorder:
    """A mock transport handler answering every request with ``reply``; keeps the requests."""

    def __init__(self, reply: Reply) -> None:
        self.reply = reply
        self.requests: list[httpx2.Request] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(request)
        return httpx2.Response(
            self.reply.status, headers=self.reply.headers, content=b"".join(self.reply.pieces)
        )


def _anthropic(handler: Recorder) -> ModelClient:
    client = httpx2.Client(transport=httpx2.MockTransport(handler))
    return AnthropicModel(
        MODEL, max_tokens=64, api_key=KEY, base_url="http://mock", retry=NO_RETRY,
        http_client=client,
    )  # fmt: skip


def _openai(handler: Recorder) -> ModelClient:
    client = httpx2.Client(transport=httpx2.MockTransport(handler))
    return OpenAICompatibleModel(
        MODEL, max_tokens=64, api_key=KEY, base_url="http://mock/v1", retry=NO_RETRY,
        http_client=client,
    )  # fmt: skip


CASES: list[tuple[Callable[[Recorder], ModelClient], Callable[..., Reply], str]] = [
    (_anthropic, anthropic_ok, "/v1/messages"),
    (_openai, openai_ok, "/v1/chat/completions"),
]


@pytest.mark.parametrize(("make", "ok", "path"), CASES)
def test_streams_through_the_injected_client(make: Any, ok: Any, path: str) -> None:
    handler = Recorder(ok(["Loans last ", "21 days."], usage=(30, 9)))
    done = complete(make(handler), PROMPT)
    assert done.text == "Loans last 21 days."
    assert done.usage == Usage(30, 9)
    (request,) = handler.requests
    assert request.url.path == path
    body = json.loads(request.content)
    assert body["model"] == MODEL and body["stream"] is True
    assert PROMPT.user in json.dumps(body)


@pytest.mark.parametrize(("make", "ok", "path"), CASES)
def test_a_401_from_the_mock_is_an_auth_error_without_the_key(
    make: Any, ok: Any, path: str
) -> None:
    model = make(Recorder(Reply(status=401, headers={"content-type": "application/json"},
                                pieces=[b'{"error": {"message": "bad key"}}'])))  # fmt: skip
    with pytest.raises(ModelAuthError) as caught:
        list(model.stream(PROMPT))
    assert KEY not in str(caught.value)
