"""The FastAPI app of ``docqa serve``: a thin HTTP edge over the library's answer path.

::

    request ─▶ AccessLog ─▶ BodyLimit ─▶ key ─▶ 422 checks ─▶ slot (429) ─▶ retrieve
                                                 └─▶ /search: hits    └─▶ /ask: answer_stream
                                                                      └─▶ /ask/stream: SSE

Ordinary good ``POST /search`` and ``/ask`` requests take the fast lane
(:mod:`docqa.service.fast`: the same steps without FastAPI's routing and body handling);
every other request, and each refusal, goes through the routes below. Every search is
restricted to the key's tenants by a row mask inside the kernels. The answer path is
:func:`docqa.answering.answer_stream` over hits retrieved before any response starts, so a
bad request or a failed retrieval is an ordinary JSON error, never a broken stream.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import threading
from collections.abc import AsyncIterator, Iterator, Mapping, MutableMapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fastapi import Depends, FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, StreamingResponse
from starlette.exceptions import HTTPException

from docqa.answering import answer, answer_hits, answer_stream
from docqa.errors import DocqaError
from docqa.pricing import Price
from docqa.service import errors
from docqa.service.fast import FastLane
from docqa.service.keys import OPEN, Grant, KeyRing
from docqa.service.live import Live, Served
from docqa.service.middleware import AccessLog, BodyLimit
from docqa.service.page import collection_name, render_page
from docqa.service.schemas import (
    AskRequest,
    AskResponse,
    BodyResponse,
    ErrorBody,
    SearchRequest,
    SearchResponse,
    answer_body,
    search_body,
)
from docqa.service.streaming import Retrieved, relay, sse
from docqa.types import Answer, Hit, ModelClient

log = logging.getLogger("docqa.serve")
IN_LOOP = frozenset({"keyword"})  # modes searched in the event loop (see Service.retrieve)
ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorBody} for code in (401, 422, 429, 502, 503, 504)
}


@dataclass(frozen=True, slots=True)
class ServeSettings:
    """Limits and keys of one service (``docqa serve --help`` documents each)."""

    keys: KeyRing | None = None
    max_concurrency: int = 8
    max_question: int = 2000
    max_body: int = 64 * 1024
    model_timeout: float = 60.0
    prices: Mapping[str, Price] | None = None
    search_threads: int | None = None  # None: one per core available
    name: str | None = None  # the collection's name on the page (None: its folder's name)


def cores() -> int:
    """The cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


class Slots:
    """At most ``size`` requests in work; the event loop thread is the only user."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.busy = 0

    @property
    def full(self) -> bool:
        return self.busy >= self.size

    def take(self) -> None:
        if self.full:
            raise HTTPException(
                429,
                f"the service is at its limit of {self.size} requests in work; retry shortly",
                headers={"Retry-After": "1"},
            )
        self.busy += 1

    def give(self) -> None:
        self.busy -= 1

    @contextmanager
    def held(self) -> Iterator[None]:
        """A slot taken (429 when none is free) for the block, given back however it ends."""
        self.take()
        try:
            yield
        finally:
            self.give()


class SlotStream(StreamingResponse):
    """A streaming response that gives its slot back however the stream ends."""

    def __init__(self, content: AsyncIterator[str], slots: Slots) -> None:
        headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
        super().__init__(content, media_type="text/event-stream", headers=headers)
        self.slots = slots

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.slots.give()


class Service:
    """What the routes share: the live index, the model, the settings and the slots."""

    def __init__(self, live: Live, model: ModelClient, settings: ServeSettings) -> None:
        self.live = live
        self.model = model
        self.settings = settings
        self.slots = Slots(settings.max_concurrency)
        self._searchers: ThreadPoolExecutor | None = None

    def searchers(self) -> ThreadPoolExecutor:
        """The threads searches run in: one per core (``search_threads``), made on first use
        (after ``--workers`` forked). A queue in front of a few threads rather than a thread
        per request: past the cores, more threads only contend for the GIL and the kernels'
        cores, and the queue is first come, first served (bounded by the slots)."""
        if self._searchers is None:
            threads = self.settings.search_threads or cores()
            self._searchers = ThreadPoolExecutor(threads, thread_name_prefix="docqa-search")
        return self._searchers

    def close(self) -> None:
        if self._searchers is not None:
            self._searchers.shutdown(wait=False)

    def authorize(self, authorization: str, state: MutableMapping[str, object]) -> Grant | None:
        """The grant of an ``Authorization`` header value (``Bearer KEY``), None for a missing
        or wrong key; records the caller's tenants in ``state`` for the access log."""
        keys = self.settings.keys
        if keys is None:
            return OPEN
        scheme, _, token = authorization.partition(" ")
        grant = keys.grant(token.strip()) if scheme.lower() == "bearer" else None
        if grant is not None:
            state["tenant"] = grant.label
        return grant

    async def grant(self, request: Request) -> Grant:
        """The caller's grant from ``Authorization: Bearer KEY``; 401 for a missing or wrong
        key alike (the response never tells which). A coroutine, so FastAPI runs it in the
        event loop rather than handing it to a worker thread (a hop per request)."""
        grant = self.authorize(
            request.headers.get("authorization", ""), request.scope.setdefault("state", {})
        )
        if grant is None:
            raise HTTPException(
                401,
                "missing or invalid API key; send Authorization: Bearer KEY",
                headers={"WWW-Authenticate": "Bearer"},
            )
        return grant

    def question(self, body: SearchRequest, state: MutableMapping[str, object]) -> str:
        """The question, checked against the length limit (422 when too long or blank);
        its length goes to ``state`` for the access log."""
        state["question_chars"] = len(body.question)
        limit = self.settings.max_question
        if len(body.question) > limit:
            raise HTTPException(
                422,
                f"question: {len(body.question)} characters is more than the limit of {limit} "
                "(--max-question); shorten it",
            )
        if not body.question.strip():
            raise HTTPException(422, "question: it is blank; send a question")
        return body.question

    def snapshot(self) -> Served:
        if not self.live.ready:
            raise HTTPException(
                503, "the index is still warming up; retry shortly", headers={"Retry-After": "1"}
            )
        return self.live.current()

    async def in_loop(self, body: SearchRequest) -> bool:
        """Whether a request's search runs in the event loop's thread (see :meth:`retrieve`).

        Before counting the requests in work, the loop gets one turn: requests it has already
        read but not yet started (uvicorn makes a task per request, run in order) take their
        slots first. Without it, each of a burst of requests would count itself alone and
        search in the loop, one after another, while the search threads stay idle."""
        if body.mode in IN_LOOP:
            return True
        await asyncio.sleep(0)
        return self.slots.busy <= 1

    async def retrieve(self, question: str, body: SearchRequest, grant: Grant) -> list[Hit]:
        """The key's best ``k`` hits (for ``/ask``, :func:`~docqa.answering.answer_hits`). Dense
        and hybrid search run on the search threads: their kernel releases the GIL and uses every
        core, so the event loop goes on parsing and answering other requests meanwhile
        (searching them in the loop thread halves the 8-client throughput of dense search and
        /ask). Keyword search runs in the loop thread: it holds the GIL for most of its time
        (its kernel is about a tenth of it), so a thread buys no overlap and costs a hand-over
        each way and a cold start (measured, paired: 0.5 ms of CPU and of p50 latency per
        request, with the same 8-client throughput). So does a lone request, the only one in
        work: no other is there to overlap with, and the hand-over would cost its latency
        ~0.5 ms (measured, docs/notes/2026-12-service.md); one arriving meanwhile is read when
        the search ends, as it would wait for the cores anyway."""
        retriever = self.snapshot().retriever(body.mode, grant.tenants)
        ask = isinstance(body, AskRequest)
        search = functools.partial(answer_hits, retriever) if ask else retriever.search
        if await self.in_loop(body):
            return search(question, body.k)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.searchers(), search, question, body.k)

    async def ask(self, question: str, body: SearchRequest, grant: Grant) -> Answer:
        """The key's hits answered by the model (``POST /ask``). A model that answers in
        this process in bounded CPU time (``in_process = True``: the extractive one) answers
        where the search ran, in the same hand-over: its work holds the GIL like a keyword
        search's, so a thread of its own buys no overlap and costs a thread start and two
        wake-ups per answer (1.0 ms of p50 in-process, measured, docs/notes/2026-12-service.md). Any other
        model (a backend over the network, or the scripted fake) streams in a thread of its
        own through :func:`relay`, under the model timeout, and is closed when the wait ends."""
        if getattr(self.model, "in_process", False) is not True:
            return await self.answer(question, await self.retrieve(question, body, grant), body.k)
        retriever = self.snapshot().retriever(body.mode, grant.tenants)
        prices, model = self.settings.prices, self.model

        def work() -> Answer:
            return answer(question, retriever, model, body.k, prices=prices)

        if await self.in_loop(body):
            return work()
        return await asyncio.get_running_loop().run_in_executor(self.searchers(), work)

    async def respond(
        self, path: str, question: str, body: SearchRequest, grant: Grant
    ) -> BodyResponse:
        """What ``POST /search`` (the hits) or ``POST /ask`` (the answer) sends for a checked
        ``question``, worked out in a slot (429 when none is free): the one body the routes
        and the fast lane both send."""
        with self.slots.held():
            if path == "/search":
                return BodyResponse(search_body(await self.retrieve(question, body, grant)))
            return BodyResponse(answer_body(await self.ask(question, body, grant)))

    async def answer(self, question: str, hits: list[Hit], k: int) -> Answer:
        if not hits:
            return answer(question, Retrieved(hits), self.model, k)
        items = answer_stream(question, Retrieved(hits), self.model, k, prices=self.settings.prices)
        final: Answer | None = None
        async for item in relay(items, self.settings.model_timeout, every=False):
            if isinstance(item, Answer):
                final = item
        if final is None:
            raise DocqaError("the answer path ended without an answer")
        return final

    async def frames(self, question: str, hits: list[Hit], k: int) -> AsyncIterator[str]:
        """The SSE frames of one answer: text pieces, ``[DONE]``, then ``event: sources``;
        a failure ends the stream with ``event: error``."""
        items = answer_stream(question, Retrieved(hits), self.model, k, prices=self.settings.prices)
        final: Answer | None = None
        try:
            async for item in relay(items, self.settings.model_timeout):
                if isinstance(item, Answer):
                    final = item
                else:
                    yield sse({"text": item})
        except Exception as exc:  # noqa: BLE001 (any failure ends the stream with a frame)
            yield sse({"error": errors.public_message(exc)}, "error")
            return
        yield sse("[DONE]")
        if final is not None:
            yield sse(answer_body(final), "sources")


def _lifespan(service: Service) -> Any:
    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        threading.Thread(target=_warm, args=(service.live,), daemon=True).start()
        try:
            yield
        finally:
            service.close()

    return lifespan


def _warm(live: Live) -> None:
    try:
        live.warm()
    except Exception:
        log.exception("docqa serve: warming the index failed; /ready stays 503")


def create_app(
    live: Live, model: ModelClient, settings: ServeSettings, *, fast_lane: bool = True
) -> FastAPI:
    """The service over ``live`` answering with ``model``. Warming starts with the app's
    lifespan (call ``live.warm()`` yourself when driving the app without one).
    ``fast_lane=False``: every request through the FastAPI routes (the fast lane's slow
    twin, :mod:`docqa.service.fast`)."""
    service = Service(live, model, settings)
    app = FastAPI(
        title="docqa",
        summary="Grounded answers with sources over your own documents",
        lifespan=_lifespan(service),
    )
    errors.install(app)
    if fast_lane:  # innermost: after the access log and the body limit
        app.add_middleware(FastLane, service=service)
    app.add_middleware(BodyLimit, max_bytes=settings.max_body)
    app.add_middleware(AccessLog)
    _routes(app, service)
    return app


def _routes(app: FastAPI, service: Service) -> None:
    _status_routes(app, service)
    _answer_routes(app, service)


def _status_routes(app: FastAPI, service: Service) -> None:
    settings = service.settings
    name = settings.name or collection_name(Path(service.live.root))
    page = render_page(name, keys=settings.keys is not None)

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    async def index() -> HTMLResponse:
        return HTMLResponse(page)

    @app.get("/health")
    async def health() -> dict[str, str]:
        """The process is up."""
        return {"status": "ok"}

    @app.get("/ready", responses={503: {"model": ErrorBody}})
    async def ready() -> JSONResponse:
        """The index is open and the kernels are compiled."""
        snap = service.snapshot()
        return JSONResponse({"ready": True, "chunks": snap.chunks, "created": snap.created})


def _answer_routes(app: FastAPI, service: Service) -> None:
    caller = Depends(service.grant)

    @app.post("/search", response_model=SearchResponse, responses=ERRORS)
    async def search(body: SearchRequest, request: Request, grant: Grant = caller) -> BodyResponse:
        """The passages that best match the question, among the key's tenants."""
        question = service.question(body, request.scope.setdefault("state", {}))
        return await service.respond("/search", question, body, grant)

    @app.post("/ask", response_model=AskResponse, responses=ERRORS)
    async def ask(body: AskRequest, request: Request, grant: Grant = caller) -> BodyResponse:
        """An answer with its sources and checked citations, or a refusal (no model call)."""
        question = service.question(body, request.scope.setdefault("state", {}))
        return await service.respond("/ask", question, body, grant)

    @app.post("/ask/stream", response_class=StreamingResponse, responses=ERRORS)
    async def ask_stream(
        body: AskRequest, request: Request, grant: Grant = caller
    ) -> StreamingResponse:
        """Server-sent events: ``data: {"text": ...}`` pieces, ``data: [DONE]``, then
        ``event: sources``; a refusal is one ``event: refused``; a failure ``event: error``."""
        question = service.question(body, request.scope.setdefault("state", {}))
        service.slots.take()
        try:
            hits = await service.retrieve(question, body, grant)
        except BaseException:
            service.slots.give()
            raise
        if not hits:
            service.slots.give()
            refusal = answer(question, Retrieved(hits), service.model, body.k)
            return StreamingResponse(
                iter([sse(answer_body(refusal), "refused")]), media_type="text/event-stream"
            )
        return SlotStream(service.frames(question, hits, body.k), service.slots)
