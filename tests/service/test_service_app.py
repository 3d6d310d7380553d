"""The HTTP contract, in-process through httpx's ASGI transport (no sockets)."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from service_helpers import KEYS, UNANSWERABLE, bearer, parse_sse

from docqa.build import IndexSettings, build_index
from docqa.errors import ModelAuthError, ModelStreamBroken
from docqa.models import ExtractiveModel, FakeModel
from docqa.models.base import PieceStream
from docqa.prompt import REFUSAL
from docqa.service.app import ServeSettings, create_app
from docqa.service.keys import KeyRing
from docqa.service.live import LiveIndex
from docqa.types import ModelClient, Prompt

ACME, GLOBEX, BOTH, ADMIN = KEYS
FINE = "How much is the overdue fine for a book?"


def call(
    live: LiveIndex,
    requests: list[tuple[str, str, dict[str, Any] | None, dict[str, str]]],
    *,
    model: ModelClient | None = None,
    keys: KeyRing | None = None,
    **limits: Any,
) -> list[httpx.Response]:
    """Send ``(method, path, json, headers)`` requests to a fresh app, in order."""
    app = create_app(live, model or ExtractiveModel(), ServeSettings(keys=keys, **limits))

    async def run() -> list[httpx.Response]:
        # as a server would: an unexpected error is a 500 response, not an exception here
        transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
        async with httpx.AsyncClient(transport=transport, base_url="http://docqa") as client:
            return [await client.request(m, p, json=body, headers=h) for m, p, body, h in requests]

    return asyncio.run(run())


def one(live: LiveIndex, method: str, path: str, body: Any = None, **kw: Any) -> httpx.Response:
    headers = kw.pop("headers", {})
    return call(live, [(method, path, body, headers)], **kw)[0]


def test_health_ready_page_and_docs(live: LiveIndex) -> None:
    health, ready, page, docs, schema = call(
        live, [("GET", p, None, {}) for p in ("/health", "/ready", "/", "/docs", "/openapi.json")]
    )
    assert health.json() == {"status": "ok"}
    assert ready.status_code == 200
    assert ready.json()["ready"] is True and ready.json()["chunks"] == len(
        live.current().collection.index
    )
    assert page.headers["content-type"].startswith("text/html") and 'id="question"' in page.text
    assert docs.status_code == 200
    paths = schema.json()["paths"]
    assert {"/search", "/ask", "/ask/stream", "/health", "/ready"} <= set(paths)


def test_not_ready_until_warm(tenant_index: Any) -> None:
    cold = LiveIndex(tenant_index)
    ready, search = call(
        cold, [("GET", "/ready", None, {}), ("POST", "/search", {"question": FINE}, {})]
    )
    assert ready.status_code == 503 and search.status_code == 503
    assert search.headers["retry-after"] == "1" and "warming up" in search.json()["error"]


def test_search_returns_hits_in_the_documented_shape(live: LiveIndex) -> None:
    for mode in ("dense", "keyword", "hybrid"):
        response = one(live, "POST", "/search", {"question": FINE, "k": 2, "mode": mode})
        assert response.status_code == 200, response.text
        hits = response.json()["hits"]
        assert 1 <= len(hits) <= 2
        first = hits[0]
        keys = {"id", "section", "source", "heading_path", "score", "text", "components"}
        assert keys <= set(first)
        assert first["source"] == "acme/fines.md" and "ten cents" in first["text"]
        assert set(first["components"]) <= {"dense", "keyword"}


def test_ask_answers_with_checked_sources_and_refuses_without_a_model_call(live: LiveIndex) -> None:
    answered = one(live, "POST", "/ask", {"question": FINE})
    body = answered.json()
    assert set(body) == {
        "answer",
        "sources",
        "refused",
        "cited",
        "not_retrieved",
        "claims",
        "usage",
        "cost",
    }
    assert body["claims"] and all(c["supported"] for c in body["claims"])  # extractive quotes
    assert "ten cents" in body["answer"] and body["refused"] is False
    assert body["cited"] and body["not_retrieved"] == []
    assert body["cited"][0] in {s["id"] for s in body["sources"]}
    fake = FakeModel(["never used"])
    refused = one(live, "POST", "/ask", {"question": UNANSWERABLE}, model=fake)
    assert refused.json()["refused"] is True and refused.json()["answer"] == REFUSAL
    assert refused.json()["sources"] == [] and fake.prompts == []


def test_ask_flags_a_citation_that_was_not_retrieved(live: LiveIndex) -> None:
    fake = FakeModel(["Ten cents a day [acme/fines#overdue-fines] [made/up#id]."])
    body = one(live, "POST", "/ask", {"question": FINE}, model=fake).json()
    assert body["cited"] == ["acme/fines#overdue-fines", "made/up#id"]
    assert body["not_retrieved"] == ["made/up#id"]
    [claim] = body["claims"]
    assert claim["text"] == "Ten cents a day" and claim["supported"] is False
    assert "made/up#id" in claim["not_supported_by"]


def test_stream_frames_pieces_done_then_sources(live: LiveIndex) -> None:
    fake = FakeModel(["Ten cents a day\nat most [acme/fines#overdue-fines]."], piece_size=5)
    response = one(live, "POST", "/ask/stream", {"question": FINE}, model=fake)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    frames = parse_sse(response.text)
    *pieces, done, sources = frames
    assert all(event is None for event, _ in pieces) and len(pieces) > 3
    text = "".join(json.loads(data)["text"] for _, data in pieces)
    assert text == "Ten cents a day\nat most [acme/fines#overdue-fines]."
    assert done == (None, "[DONE]")
    assert sources[0] == "sources"
    final = json.loads(sources[1])
    assert final["answer"] == text and final["not_retrieved"] == [] and final["sources"]


def test_stream_refusal_is_one_refused_frame(live: LiveIndex) -> None:
    fake = FakeModel(["never used"])
    response = one(live, "POST", "/ask/stream", {"question": UNANSWERABLE}, model=fake)
    frames = parse_sse(response.text)
    assert len(frames) == 1 and frames[0][0] == "refused"
    assert json.loads(frames[0][1])["refused"] is True and fake.prompts == []


class BreaksAfterOnePiece:
    name = "breaks"

    def stream(self, prompt: Prompt) -> PieceStream:
        yield "Ten cents"
        raise ModelStreamBroken("model 'breaks': the stream broke after part of the reply")


class Slow:
    name = "slow"

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    def stream(self, prompt: Prompt) -> Iterator[str]:
        time.sleep(self.seconds)
        yield "late"


def test_model_failures_end_the_stream_with_an_error_frame_without_secrets(
    live: LiveIndex,
) -> None:
    frames = parse_sse(
        one(live, "POST", "/ask/stream", {"question": FINE}, model=BreaksAfterOnePiece()).text
    )
    assert frames[0] == (None, json.dumps({"text": "Ten cents"}))
    assert frames[-1][0] == "error" and "stream broke" in json.loads(frames[-1][1])["error"]
    secret = "sk-secret-value-123"
    auth = FakeModel([ModelAuthError("model 'x': the backend refused the credentials; check KEY")])
    frames = parse_sse(one(live, "POST", "/ask/stream", {"question": FINE}, model=auth).text)
    assert [e for e, _ in frames] == ["error"] and secret not in frames[0][1]
    crash = FakeModel([RuntimeError(f"internal detail {secret}")])
    frames = parse_sse(one(live, "POST", "/ask/stream", {"question": FINE}, model=crash).text)
    assert frames[-1][0] == "error" and secret not in frames[-1][1]
    assert "server log" in frames[-1][1]


def test_model_timeout_is_504_for_ask_and_an_error_frame_for_the_stream(live: LiveIndex) -> None:
    asked = one(live, "POST", "/ask", {"question": FINE}, model=Slow(1.0), model_timeout=0.2)
    assert asked.status_code == 504 and "--model-timeout" in asked.json()["error"]
    streamed = one(
        live, "POST", "/ask/stream", {"question": FINE}, model=Slow(1.0), model_timeout=0.2
    )
    assert parse_sse(streamed.text)[-1][0] == "error"
    crashed = one(live, "POST", "/ask", {"question": FINE}, model=FakeModel([RuntimeError("boom")]))
    assert crashed.status_code == 500 and "boom" not in crashed.text


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ({"question": FINE, "k": 0}, "k: Input should be greater than or equal to 1"),
        ({"question": FINE, "k": 101}, "k: Input should be less than or equal to 100"),
        ({"question": FINE, "k": "5"}, "k: Input should be a valid integer"),
        ({"question": FINE, "k": True}, "k: Input should be a valid integer"),
        (
            {"question": FINE, "mode": "fuzzy"},
            "mode: Input should be 'dense', 'keyword' or 'hybrid'",
        ),
        ({"question": ""}, "question: String should have at least 1 character"),
        ({"question": "   "}, "question: it is blank"),
        ({"question": "x" * 2001}, "question: 2001 characters is more than the limit of 2000"),
        ({"question": FINE, "top_k": 3}, "top_k: Extra inputs are not permitted"),
        ({"k": 3}, "question: Field required"),
        ([1, 2], 'the request body must be a JSON object such as {"question": "..."}'),
    ],
)
def test_bad_requests_are_422_with_one_clear_line(live: LiveIndex, body: Any, says: str) -> None:
    for path in ("/search", "/ask", "/ask/stream"):
        response = one(live, "POST", path, body)
        assert response.status_code == 422, (path, response.text)
        assert response.headers["content-type"] == "application/json"
        assert says in response.json()["error"], response.json()


def test_unparsable_and_oversized_bodies(live: LiveIndex) -> None:
    app = create_app(live, ExtractiveModel(), ServeSettings(max_body=200))

    async def run() -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://docqa") as client:
            bad_json = await client.post(
                "/search", content=b"{nope", headers={"content-type": "application/json"}
            )
            big = await client.post("/search", json={"question": "x" * 500})

            async def chunks() -> Any:
                for _ in range(10):
                    yield b" " * 50

            streamed = await client.post("/search", content=chunks())
            return [bad_json, big, streamed]

    bad_json, big, streamed = asyncio.run(run())
    assert bad_json.status_code == 422 and "JSON" in bad_json.json()["error"]
    for response in (big, streamed):
        assert response.status_code == 422 and "larger than 200 bytes" in response.json()["error"]


@pytest.mark.parametrize(
    ("body", "content_type", "says"),
    [
        (b"{nope", "application/json", "this one is not valid JSON"),
        (b'{"question": "fines", "k": 500}', None, "(this one has no Content-Type)"),
        (b'{"question": "x"}', "text/plain", "(this one has Content-Type text/plain)"),
        (b'"fines"', "application/json; charset=utf-8", "must be a JSON object such as"),
        (b"", "application/json", "must be a JSON object such as"),
    ],
)
def test_a_body_that_is_not_a_json_object_says_what_it_must_be(
    live: LiveIndex, body: bytes, content_type: str | None, says: str
) -> None:
    app = create_app(live, ExtractiveModel(), ServeSettings())
    headers = {"content-type": content_type} if content_type else {}

    async def run() -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://docqa") as client:
            return [
                await client.post(p, content=body, headers=headers) for p in ("/search", "/ask")
            ]

    for response in asyncio.run(run()):
        assert response.status_code == 422
        error = response.json()["error"]
        assert error.startswith("the request body must be a JSON object such as"), error
        assert says in error and "0:" not in error and "dictionary" not in error, error


def test_the_page_names_the_collection_and_shows_the_key_field_only_with_keys(
    live: LiveIndex, keyring: KeyRing
) -> None:
    bare = one(live, "GET", "/").text
    keyed = one(live, "GET", "/", keys=keyring).text
    named = one(live, "GET", "/", name="Acme <wiki>").text
    assert "<title>index · docqa</title>" in bare and '<span id="collection">index</span>' in bare
    assert '<span id="collection">Acme &lt;wiki&gt;</span>' in named
    assert 'autocomplete="off" hidden>' in bare and 'autocomplete="off">' in keyed
    assert "{{" not in bare + keyed


def test_keys_401_does_not_tell_missing_from_wrong(live: LiveIndex, keyring: KeyRing) -> None:
    q = {"question": FINE}
    missing, wrong, basic, prefix, right = call(
        live,
        [
            ("POST", "/search", q, {}),
            ("POST", "/search", q, bearer("wrong-key-0123456789abcdef")),
            ("POST", "/search", q, {"Authorization": f"Basic {ACME}"}),
            ("POST", "/search", q, bearer(ACME[:-1])),
            ("POST", "/search", q, bearer(ACME)),
        ],
        keys=keyring,
    )
    for response in (missing, wrong, basic, prefix):
        assert response.status_code == 401
        assert response.content == missing.content
        assert response.headers["www-authenticate"] == "Bearer"
    assert right.status_code == 200
    assert {h["source"].split("/")[0] for h in right.json()["hits"]} == {"acme"}


def test_each_key_sees_only_its_tenants(live: LiveIndex, keyring: KeyRing) -> None:
    q = {"question": "fines printing rooms errors loans hours", "k": 20, "mode": "keyword"}
    responses = call(live, [("POST", "/search", q, bearer(k)) for k in KEYS], keys=keyring)
    seen = {
        key: {h["source"] for h in r.json()["hits"]} for key, r in zip(KEYS, responses, strict=True)
    }
    assert {s.split("/")[0] for s in seen[ACME]} == {"acme"}
    assert {s.split("/")[0] for s in seen[GLOBEX]} == {"globex"}
    assert {s.split("/")[0] for s in seen[BOTH]} == {"acme", "initech"}
    assert "shared.md" in seen[ADMIN] and {s.split("/")[0] for s in seen[ADMIN]} >= {
        "acme",
        "globex",
    }


def test_access_log_has_tenant_and_length_never_key_or_question(
    live: LiveIndex, keyring: KeyRing, caplog: pytest.LogCaptureFixture
) -> None:
    question = "What is the secret-looking question text?"
    with caplog.at_level(logging.INFO, logger="docqa.serve.access"):
        call(
            live,
            [
                ("POST", "/ask", {"question": question}, bearer(BOTH)),
                ("POST", "/search", {"question": question}, bearer("wrong-key-0123456789abcdef")),
                ("GET", "/health", None, {}),
            ],
            keys=keyring,
        )
    lines = [r.getMessage() for r in caplog.records if r.name == "docqa.serve.access"]
    assert len(lines) == 3
    assert lines[0].startswith("POST /ask 200 ") and "tenant=acme,initech" in lines[0]
    assert f"question_chars={len(question)}" in lines[0]
    assert lines[1].startswith("POST /search 401 ") and "tenant=-" in lines[1]
    assert lines[2].startswith("GET /health 200 ")
    for line in lines:
        assert question not in line and "secret" not in line
        assert all(key not in line for key in KEYS)


def test_unknown_paths_and_methods_are_json_errors(live: LiveIndex) -> None:
    missing, method = call(live, [("GET", "/nope", None, {}), ("GET", "/search", None, {})])
    assert missing.status_code == 404 and "error" in missing.json()
    assert method.status_code == 405 and "error" in method.json()


def test_a_question_past_the_library_limit_is_422_whatever_max_question_says(
    live: LiveIndex,
) -> None:
    body = {"question": "book " * 20_000}  # 100 KB
    for path in ("/search", "/ask", "/ask/stream"):
        response = one(live, "POST", path, body, max_question=10**6, max_body=10**6)
        assert response.status_code == 422, (path, response.text)
        assert "more than the limit of 10,000; shorten it" in response.json()["error"]


def test_ask_reads_the_documentation_before_release_notes(tmp_path: Path) -> None:
    # a changelog entry naming the fine ranks beside the page that explains it; /ask and
    # /ask/stream give the model the documentation, /search ranks as it found
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "changes.md").write_text(
        "# Changelog\n\n## Version 2.0\n\nThe overdue fine for a book is now ten cents a day "
        "(the overdue fine for a book was five cents).\n"
    )
    (docs / "fines.md").write_text(
        "# Charges\n\n## Late returns\n\nThe overdue fine is ten cents a day for a book.\n\n"
        "## Lost books\n\nA lost book costs its price and a fine of two pounds.\n"
    )
    build_index([docs], tmp_path / "index", IndexSettings(embedder="hashing"))
    live = LiveIndex(tmp_path / "index")
    live.warm()
    question = {"question": "What is the overdue fine for a book?", "k": 2, "mode": "keyword"}
    search = one(live, "POST", "/search", question).json()
    assert search["hits"][0]["id"] == "changes#version-2-0"
    fake = FakeModel(["Ten cents a day [fines#late-returns]."] * 2)
    asked = one(live, "POST", "/ask", question, model=fake).json()
    assert [s["id"] for s in asked["sources"]] == ["fines#late-returns", "fines#lost-books"]
    streamed = parse_sse(one(live, "POST", "/ask/stream", question, model=fake).text)
    sources = json.loads(streamed[-1][1])
    assert [s["id"] for s in sources["sources"]] == ["fines#late-returns", "fines#lost-books"]
