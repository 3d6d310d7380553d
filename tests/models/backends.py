"""Wire formats of the three real backends, for the stand-in server: replies and requests."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from standin import Reply, Request, ndjson, sse

from docqa.models import AnthropicModel, OllamaModel, OpenAICompatibleModel
from docqa.models.base import RetryPolicy
from docqa.types import ModelClient

KEY = "sk-test-SECRET-do-not-leak-4242"
MODEL = "stand-in-model"


def anthropic_ok(texts: list[str], usage: tuple[int, int] = (25, 7), stop: bool = True) -> Reply:
    message: dict[str, Any] = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "content": [],
        "model": MODEL,
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": usage[0], "output_tokens": 1},
    }
    events: list[tuple[str | None, Any]] = [
        ("message_start", {"type": "message_start", "message": message}),
        (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
        ),
    ]
    for text in texts:
        delta = {"type": "text_delta", "text": text}
        events.append(
            ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta})
        )
    events += [
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "message_delta",
            {
                "type": "message_delta",
                "usage": {"output_tokens": usage[1]},
                "delta": {"stop_reason": "end_turn", "stop_sequence": None},
            },
        ),
    ]
    if stop:
        events.append(("message_stop", {"type": "message_stop"}))
    return Reply(headers={"content-type": "text/event-stream"}, pieces=sse(events))


def openai_ok(texts: list[str], usage: tuple[int, int] = (25, 7), stop: bool = True) -> Reply:
    def chunk(delta: dict[str, Any] | None, finish: str | None = None, **extra: Any) -> Any:
        choices = [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}]
        return (
            None,
            {
                "id": "c1",
                "object": "chat.completion.chunk",
                "created": 1,
                "model": MODEL,
                "choices": choices,
                **extra,
            },
        )

    events = [chunk({"role": "assistant", "content": t}) for t in texts]
    if stop:
        events.append(chunk({}, "stop"))
        counts = {
            "prompt_tokens": usage[0],
            "completion_tokens": usage[1],
            "total_tokens": sum(usage),
        }
        events += [chunk(None, usage=counts), (None, "[DONE]")]
    return Reply(headers={"content-type": "text/event-stream"}, pieces=sse(events))


def ollama_ok(texts: list[str], usage: tuple[int, int] = (25, 7), stop: bool = True) -> Reply:
    lines: list[Any] = [
        {"model": MODEL, "message": {"role": "assistant", "content": t}, "done": False}
        for t in texts
    ]
    if stop:
        lines.append(
            {
                "model": MODEL,
                "message": {"role": "assistant", "content": ""},
                "done": True,
                "prompt_eval_count": usage[0],
                "eval_count": usage[1],
            }
        )
    return Reply(headers={"content-type": "application/x-ndjson"}, pieces=ndjson(lines))


def error_reply(status: int, headers: dict[str, str] | None = None) -> Reply:
    body = b'{"type": "error", "error": {"type": "x", "message": "stand-in says no"}}'
    return Reply(
        status=status,
        headers={"content-type": "application/json", **(headers or {})},
        pieces=[body],
    )


@dataclass
class Backend:
    """One backend: how to build its client against a URL, its success reply, its checks."""

    name: str
    make: Callable[..., ModelClient]
    ok: Callable[..., Reply]
    check: Callable[[Request, int], None]


def check_anthropic(request: Request, max_tokens: int) -> None:
    assert request.path == "/v1/messages"
    auth = request.headers.get("x-api-key") or request.headers.get("authorization", "")
    assert auth in (KEY, f"Bearer {KEY}")
    assert "anthropic-version" in request.headers
    assert request.body["model"] == MODEL
    assert request.body["system"] == "SYSTEM RULES"
    assert request.body["messages"] == [{"role": "user", "content": "USER TEXT"}]
    assert request.body["max_tokens"] == max_tokens
    assert request.body["stream"] is True


def check_openai(request: Request, max_tokens: int) -> None:
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.body["model"] == MODEL
    assert request.body["messages"] == [
        {"role": "system", "content": "SYSTEM RULES"},
        {"role": "user", "content": "USER TEXT"},
    ]
    assert request.body["max_tokens"] == max_tokens
    assert request.body["stream"] is True
    assert request.body["stream_options"] == {"include_usage": True}


def check_ollama(request: Request, max_tokens: int) -> None:
    assert request.path == "/api/chat"
    assert request.headers["content-type"] == "application/json"
    assert request.body["model"] == MODEL
    assert request.body["messages"] == [
        {"role": "system", "content": "SYSTEM RULES"},
        {"role": "user", "content": "USER TEXT"},
    ]
    assert request.body["options"] == {"num_predict": max_tokens}
    assert request.body["stream"] is True


def make_anthropic(url: str, policy: RetryPolicy, timeout: float = 5.0) -> ModelClient:
    return AnthropicModel(MODEL, max_tokens=64, base_url=url, timeout=timeout, retry=policy)


def make_openai(url: str, policy: RetryPolicy, timeout: float = 5.0) -> ModelClient:
    return OpenAICompatibleModel(
        MODEL, max_tokens=64, base_url=f"{url}/v1", timeout=timeout, retry=policy
    )


def make_ollama(url: str, policy: RetryPolicy, timeout: float = 5.0) -> ModelClient:
    return OllamaModel(MODEL, max_tokens=64, host=url, timeout=timeout, retry=policy)


BACKENDS = [
    Backend("anthropic", make_anthropic, anthropic_ok, check_anthropic),
    Backend("openai", make_openai, openai_ok, check_openai),
    Backend("ollama", make_ollama, ollama_ok, check_ollama),
]
