"""The fast lane of ``POST /search`` and ``POST /ask``: their routes' work without the
framework's per-request machinery.

FastAPI's routing, dependency solving, body handling (``json.loads``, then validation of the
dict) and exception middlewares cost the server more CPU per request than a keyword search
takes (docs/notes/2026-12-service.md has the profile). This pure ASGI middleware sits inside the
access log and the body limit and serves the two JSON endpoints when the request is an ordinary
good one:

- ``Content-Type: application/json``, a body that pydantic's compiled validator accepts
  (``model_validate_json`` on the route's own model), a valid key, a question within the
  limits, the index ready and a slot free;

then it sends what the routes send: the ``BodyResponse`` of
:meth:`~docqa.service.app.Service.respond`, the one method both call. Every other request goes
on to the FastAPI route with its body replayed, so each refusal (401, 422, 429, 503) is the
framework's own response: the routes are the slow twin, and the tests hold the two to the same
responses.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import ValidationError
from starlette.exceptions import HTTPException
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from docqa.service import errors
from docqa.service.schemas import AskRequest, SearchRequest

if TYPE_CHECKING:
    from docqa.service.app import Service
    from docqa.service.keys import Grant

MODELS: dict[str, type[SearchRequest]] = {"/search": SearchRequest, "/ask": AskRequest}
JSON = b"application/json"
Admitted = tuple["Grant", SearchRequest, str]


def header(scope: Scope, name: bytes) -> bytes | None:
    """The first value of header ``name`` (lower case), as Starlette's ``headers.get``."""
    for key, value in scope["headers"]:
        if key == name:
            return bytes(value)
    return None


async def read_body(receive: Receive) -> list[Message] | None:
    """The request's body messages, None when the client left first."""
    messages, more = [], True
    while more:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        messages.append(message)
        more = message.get("more_body", False)
    return messages


class FastLane:
    """``POST /search`` and ``POST /ask`` for ordinary good requests (see the module
    docstring); everything else passes to ``app``."""

    def __init__(self, app: ASGIApp, service: Service) -> None:
        self.app = app
        self.service = service

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        model = MODELS.get(scope["path"]) if scope["type"] == "http" else None
        if model is None or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        messages = await read_body(receive)
        if messages is None:
            return
        replayed = list(reversed(messages))

        async def replay() -> Message:
            return replayed.pop() if replayed else await receive()

        raw = b"".join(m.get("body", b"") for m in messages)
        admitted = self.admit(scope, model, raw)
        if admitted is None:
            await self.app(scope, replay, send)
            return
        response = await self.serve(scope["path"], *admitted)
        await response(scope, replay, send)

    def admit(self, scope: Scope, model: type[SearchRequest], raw: bytes) -> Admitted | None:
        """The grant, body and question of an ordinary good request; None for any other."""
        if header(scope, b"content-type") != JSON:
            return None
        state = scope.setdefault("state", {})
        grant = self.service.authorize(
            (header(scope, b"authorization") or b"").decode("latin-1"), state
        )
        if grant is None:
            return None
        try:
            body = model.model_validate_json(raw)
            question = self.service.question(body, state)
        except (ValidationError, HTTPException):
            return None
        if not self.service.live.ready or self.service.slots.full:
            return None
        return grant, body, question

    async def serve(self, path: str, grant: Grant, body: SearchRequest, question: str) -> Response:
        """What the route answers for an admitted request: the body, or a docqa error's."""
        try:
            return await self.service.respond(path, question, body, grant)
        except Exception as exc:
            known = errors.known_error(exc)
            if known is None:
                raise
            return known
