"""The fast lane of /search and /ask against its slow twin, the FastAPI routes.

For any request (good or bad body, content type, key), the app with the fast lane answers
exactly what the app without it answers: the same status, headers that matter and body. The
lane itself serves the ordinary good requests and hands every other one on, body intact.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from service_helpers import KEYS, UNANSWERABLE

from docqa.errors import ModelStreamBroken, ModelTimeout
from docqa.models import ExtractiveModel
from docqa.service.app import ServeSettings, Service, create_app
from docqa.service.fast import FastLane
from docqa.service.keys import KeyRing
from docqa.service.live import LiveIndex
from docqa.service.streaming import relay

ACME, GLOBEX, BOTH, ADMIN = KEYS
QUESTIONS = [
    "How much is the overdue fine for a book?",
    "What does error RNW-409 mean?",
    "When does the building open?",
    "How long can I book a study room?",
    UNANSWERABLE,
]
MAX_QUESTION = 60
Request = tuple[str, bytes, dict[str, str]]


def lanes(live: LiveIndex, keys: KeyRing | None) -> tuple[Any, Any]:
    limits = ServeSettings(keys=keys, max_question=MAX_QUESTION)
    model = ExtractiveModel()
    return create_app(live, model, limits), create_app(live, model, limits, fast_lane=False)


def send(app: Any, requests: list[Request]) -> list[httpx.Response]:
    async def run() -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
        async with httpx.AsyncClient(transport=transport, base_url="http://docqa") as client:
            return [await client.post(p, content=body, headers=h) for p, body, h in requests]

    return asyncio.run(run())


def same(fast: httpx.Response, slow: httpx.Response) -> None:
    assert fast.status_code == slow.status_code, (fast.text, slow.text)
    for name in ("content-type", "retry-after", "www-authenticate"):
        assert fast.headers.get(name) == slow.headers.get(name), name
    assert fast.json() == slow.json()


values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 120),
    st.floats(allow_nan=False),
    st.text(max_size=8),
    st.lists(st.integers(), max_size=2),
)
questions = st.one_of(
    st.sampled_from(QUESTIONS),
    st.text(max_size=MAX_QUESTION + 10),
    st.just(" " * 3),
    st.just("x" * (MAX_QUESTION + 1)),
    values,
)
fields = st.fixed_dictionaries(
    {},
    optional={
        "question": questions,
        "k": st.one_of(st.integers(1, 100), values),
        "mode": st.one_of(st.sampled_from(["dense", "keyword", "hybrid"]), values),
        "top_k": values,
    },
)
raw_bodies = st.sampled_from(
    [
        b"",
        b"{nope",
        b"[1, 2]",
        b'"just a string"',
        b'{"question": "fines", "question": "When does the building open?"}',
        b'{"question": "\\ud800 fines"}',
        b'{"question": "fines", "k": NaN}',
        b'{"question": "fines", "k": 3.0}',
        b'{"question": "fines", "k": 1e1}',
        b'\xef\xbb\xbf{"question": "fines"}',
        '{"question": "Geb\u00fchren f\u00fcr B\u00fccher?"}'.encode("utf-16"),
        b' {"question": "fines", "k": 2} ',
    ]
)
content_types = st.sampled_from(
    [None, "application/json", "application/json; charset=utf-8", "text/plain",
     "application/problem+json", "APPLICATION/JSON"]
)  # fmt: skip
authorizations = st.sampled_from(
    [None, f"Bearer {ACME}", f"Bearer {BOTH}", f"Bearer {ADMIN}", "Bearer wrong-key-0123456789abc",
     f"Basic {ACME}", f"bearer  {GLOBEX}", "Bearer"]
)  # fmt: skip


@st.composite
def requests(draw: st.DrawFn) -> Request:
    path = draw(st.sampled_from(["/search", "/ask"]))
    body = draw(st.one_of(fields.map(lambda d: json.dumps(d).encode()), raw_bodies))
    headers = {}
    if (content_type := draw(content_types)) is not None:
        headers["content-type"] = content_type
    if (authorization := draw(authorizations)) is not None:
        headers["authorization"] = authorization
    return path, body, headers


@pytest.mark.parametrize("keyed", [False, True], ids=["no keys", "keys"])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batch=st.lists(requests(), min_size=1, max_size=6))
def test_the_fast_lane_answers_what_the_routes_answer(
    live: LiveIndex, keyring: KeyRing, keyed: bool, batch: list[Request]
) -> None:
    fast, slow = lanes(live, keyring if keyed else None)
    for got, want in zip(send(fast, batch), send(slow, batch), strict=True):
        same(got, want)


def test_good_requests_of_every_mode_and_key_answer_alike(
    live: LiveIndex, keyring: KeyRing
) -> None:
    fast, slow = lanes(live, keyring)
    batch = [
        (path, json.dumps({"question": q, "k": k, "mode": mode}).encode(), headers)
        for path in ("/search", "/ask")
        for q in QUESTIONS
        for k, mode in ((1, "dense"), (3, "keyword"), (7, "hybrid"))
        for headers in ({"content-type": "application/json", "authorization": f"Bearer {key}"}
                        for key in KEYS)
    ]  # fmt: skip
    got, want = send(fast, batch), send(slow, batch)
    assert {r.status_code for r in got} == {200}
    for g, w in zip(got, want, strict=True):
        assert g.content == w.content  # byte for byte: the same JSONResponse


# --- the lane itself, in front of a stand-in for the routes that says what reached it --------

Receive = Callable[[], Awaitable[dict[str, Any]]]


async def routes(scope: dict[str, Any], receive: Receive, send: Any) -> None:
    """Answers 418 with the body it received, so a test sees what was handed on."""
    body, more = b"", True
    while more:
        message = await receive()
        body += message.get("body", b"")
        more = message.get("more_body", False)
    await send({"type": "http.response.start", "status": 418, "headers": []})
    await send({"type": "http.response.body", "body": body})


def through_lane(
    service: Service, method: str, path: str, body: bytes, headers: dict[str, str]
) -> httpx.Response:
    lane = FastLane(routes, service)

    async def run() -> httpx.Response:
        transport = httpx.ASGITransport(app=lane)
        async with httpx.AsyncClient(transport=transport, base_url="http://docqa") as client:
            return await client.request(method, path, content=body, headers=headers)

    return asyncio.run(run())


JSON_TYPE = {"content-type": "application/json"}
GOOD = json.dumps({"question": QUESTIONS[0], "k": 2}).encode()


def test_the_lane_serves_good_requests_and_hands_the_rest_on_with_their_body(
    live: LiveIndex, keyring: KeyRing
) -> None:
    service = Service(live, ExtractiveModel(), ServeSettings(keys=keyring, max_question=40))
    key = {"authorization": f"Bearer {ACME}", **JSON_TYPE}
    searched = through_lane(service, "POST", "/search", GOOD, key)
    assert searched.status_code == 200 and len(searched.json()["hits"]) == 2
    asked = through_lane(service, "POST", "/ask", GOOD, key)
    assert asked.status_code == 200 and asked.json()["cited"]
    handed_on = [
        ("POST", "/search", GOOD, JSON_TYPE),  # no key
        ("POST", "/search", GOOD, {"authorization": f"Bearer {ACME}"}),  # no content type
        ("POST", "/ask", b'{"question": "fines", "k": 0}', key),  # invalid
        ("POST", "/ask", json.dumps({"question": "x" * 41}).encode(), key),  # too long
        ("POST", "/ask/stream", GOOD, key),  # not a fast lane path
        ("PUT", "/search", GOOD, key),  # not POST
    ]
    for method, path, body, headers in handed_on:
        response = through_lane(service, method, path, body, headers)
        assert response.status_code == 418 and response.content == body, (path, headers)
    assert service.slots.busy == 0


def test_the_lane_hands_on_when_busy_or_not_ready(live: LiveIndex, tenant_index: Any) -> None:
    service = Service(live, ExtractiveModel(), ServeSettings(max_concurrency=1))
    service.slots.take()  # every slot in work: the route answers the 429
    busy = through_lane(service, "POST", "/search", GOOD, JSON_TYPE)
    assert busy.status_code == 418 and service.slots.busy == 1
    service.slots.give()
    cold = Service(LiveIndex(tenant_index), ExtractiveModel(), ServeSettings())
    assert through_lane(cold, "POST", "/search", GOOD, JSON_TYPE).status_code == 418


def test_a_failed_search_is_the_routes_error_and_gives_its_slot_back(live: LiveIndex) -> None:
    from docqa.errors import IndexCorrupt

    service = Service(live, ExtractiveModel(), ServeSettings())

    async def broken(*args: Any) -> Any:
        raise IndexCorrupt("chunks.bin is truncated; rebuild the index")

    service.retrieve = broken  # type: ignore[method-assign]
    response = through_lane(service, "POST", "/search", GOOD, JSON_TYPE)
    assert response.status_code == 503
    assert response.json() == {"error": "chunks.bin is truncated; rebuild the index"}
    assert service.slots.busy == 0


def test_a_lone_search_runs_in_the_loop_and_concurrent_ones_on_the_search_threads(
    live: LiveIndex,
) -> None:
    """Where ``Service.retrieve`` searches: keyword always in the event loop's thread, dense
    and hybrid there too when the request is the only one in work, else on the search
    threads; the hits are the library's in every case. A burst of requests started together
    (tasks that run in turn, none yielding before it searches) counts as concurrent: each
    would otherwise see itself alone and search in the loop, one after another."""
    from docqa.collection import MODES
    from docqa.service.keys import OPEN
    from docqa.service.schemas import SearchRequest

    service = Service(live, ExtractiveModel(), ServeSettings(search_threads=2))
    threads: list[tuple[str, str]] = []
    snapshot = live.current()
    plain = snapshot.retriever

    def recording(mode: Any, tenants: Any) -> Any:
        retriever = plain(mode, tenants)

        class Recorded:
            def search(self, question: str, k: int) -> Any:
                threads.append((mode, threading.current_thread().name))
                return retriever.search(question, k)

        return Recorded()

    async def ask(mode: str, together: int) -> list[list[str]]:
        body = SearchRequest(question=QUESTIONS[0], k=3, mode=mode)  # type: ignore[arg-type]

        async def one() -> list[str]:
            service.slots.take()  # as the routes do, then straight on: no turn of the loop
            try:
                return [h.id for h in await service.retrieve(body.question, body, OPEN)]
            finally:
                service.slots.give()

        return list(await asyncio.gather(*(one() for _ in range(together))))

    expected = {m: [h.id for h in plain(m, None).search(QUESTIONS[0], 3)] for m in MODES}
    snapshot.retriever = recording  # type: ignore[method-assign]
    try:
        for mode in MODES:
            for together in (1, 3):
                threads.clear()
                assert asyncio.run(ask(mode, together)) == [expected[mode]] * together
                names = {name for _, name in threads}
                assert len(threads) == together
                if mode == "keyword" or together == 1:
                    assert names == {threading.main_thread().name}, (mode, together)
                else:
                    assert all(n.startswith("docqa-search") for n in names), names
    finally:
        del snapshot.retriever
        service.close()


def test_an_in_process_model_answers_where_the_search_ran_and_others_in_their_own_thread(
    live: LiveIndex,
) -> None:
    """``Service.ask``: the extractive model (``in_process``) answers in the thread that
    searched (the event loop's for a lone request, a search thread under concurrency), in one
    hand-over; a model without the mark streams in a relay thread of its own. Every answer is
    the library's."""
    from docqa.answering import answer
    from docqa.service.keys import OPEN
    from docqa.service.schemas import AskRequest

    class Recording(ExtractiveModel):
        def __init__(self) -> None:
            super().__init__()
            self.threads: list[str] = []

        def stream(self, prompt: Any) -> Any:
            self.threads.append(threading.current_thread().name)
            return super().stream(prompt)

    class Remote(Recording):
        in_process = False

    def place(thread: str) -> str:
        if thread == threading.main_thread().name:
            return "loop"
        return "search" if thread.startswith("docqa-search") else "own"

    question = QUESTIONS[0]
    for model, together, where in (
        (Recording(), 1, {"loop"}),
        (Recording(), 3, {"search"}),
        (Remote(), 1, {"own"}),
        (Remote(), 3, {"own"}),
    ):
        service = Service(live, model, ServeSettings(search_threads=2))
        body = AskRequest(question=question, k=3, mode="dense")
        expected = answer(question, live.current().retriever("dense", None), ExtractiveModel(), 3)
        model.threads.clear()

        async def one(service: Service = service, body: AskRequest = body) -> Any:
            service.slots.take()
            try:
                return await service.ask(question, body, OPEN)
            finally:
                service.slots.give()

        async def run(together: int = together) -> list[Any]:
            return list(await asyncio.gather(*(one() for _ in range(together))))

        try:
            got = asyncio.run(run())
        finally:
            service.close()
        assert [(a.text, a.cited_ids, a.not_retrieved) for a in got] == [
            (expected.text, expected.cited_ids, expected.not_retrieved)
        ] * together
        named = {place(name) for name in model.threads}
        assert len(model.threads) == together and named == where, (model, model.threads)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text()
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(body=st.dictionaries(st.text(), json_values, max_size=6))
def test_bodies_encode_to_the_values_starlettes_encoder_gives(body: dict[str, Any]) -> None:
    from starlette.responses import JSONResponse

    from docqa.service.schemas import BodyResponse

    fast, slow = BodyResponse(body), JSONResponse(body)
    assert json.loads(fast.body) == json.loads(slow.body) == body
    assert fast.headers["content-type"] == slow.headers["content-type"]


# --- /ask's answer handed over once -------------------------------------------------------


class Pieces:
    """An iterator of ``items`` (an exception among them is raised) that records its close."""

    def __init__(self, *items: object, wait: float = 0.0) -> None:
        self.items, self.wait, self.closed, self.taken = list(items), wait, False, 0

    def __iter__(self) -> Pieces:
        return self

    def __next__(self) -> object:
        if not self.items:
            raise StopIteration
        time.sleep(self.wait)
        self.taken += 1
        item = self.items.pop(0)
        if isinstance(item, Exception):
            raise item
        return item

    def close(self) -> None:
        self.closed = True


async def drain(items: Pieces, timeout: float, every: bool) -> list[object]:
    return [item async for item in relay(iter(items), timeout, every=every)]


def closed_soon(items: Pieces) -> bool:
    """Whether the worker thread closed ``items`` (it does so after its last hand-over)."""
    deadline = time.monotonic() + 5
    while not items.closed and time.monotonic() < deadline:
        time.sleep(0.01)
    return items.closed


def test_relay_hands_over_every_piece_or_only_the_last() -> None:
    every, last, empty = Pieces("a", "b", "c"), Pieces("a", "b", "c"), Pieces()
    assert asyncio.run(drain(every, 5.0, True)) == ["a", "b", "c"]
    assert asyncio.run(drain(last, 5.0, False)) == ["c"]
    assert asyncio.run(drain(empty, 5.0, False)) == [None]
    assert closed_soon(every) and closed_soon(last) and closed_soon(empty)


def test_relay_of_the_last_raises_what_the_model_raised_and_times_out() -> None:
    failing = Pieces("a", ModelStreamBroken("the stream broke; ask again"))
    with pytest.raises(ModelStreamBroken, match="stream broke"):
        asyncio.run(drain(failing, 5.0, False))
    slow = Pieces(*"abcdefghij", wait=0.2)
    with pytest.raises(ModelTimeout, match="--model-timeout"):
        asyncio.run(drain(slow, 0.3, False))
    assert closed_soon(slow) and slow.taken < 10  # told to stop: it left after the piece it was on
