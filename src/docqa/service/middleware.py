"""Pure ASGI middleware of the service: the access log and the request body limit.

The access log writes one line per request to the ``docqa.serve.access`` logger::

    POST /ask/stream 200 12.4ms tenant=acme question_chars=31

(method, path without the query, status, milliseconds until the response ended, the tenants
of the caller's key and the question's length). Never the key, never the question's text.
"""

from __future__ import annotations

import json
import logging
import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send

access_log = logging.getLogger("docqa.serve.access")


class AccessLog:
    """One log line per HTTP request (see the module docstring)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500
        state = scope.setdefault("state", {})

        async def sent(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, sent)
        finally:
            ms = (time.perf_counter() - started) * 1000
            access_log.info(
                "%s %s %d %.1fms tenant=%s question_chars=%s",
                scope["method"],
                scope["path"],
                status,
                ms,
                state.get("tenant", "-"),
                state.get("question_chars", "-"),
            )


class BodyLimit:
    """Answer 422 to a request whose body is longer than ``max_bytes``, declared or sent.

    The body (small by construction) is read here first, then handed to the app in one piece;
    later ``receive`` calls go to the server (so a disconnect is still seen).
    """

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in ("POST", "PUT", "PATCH"):
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.max_bytes):
            await self._refuse(send)
            return
        parts: list[bytes] = []
        size, more = 0, True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            parts.append(message.get("body", b""))
            size += len(parts[-1])
            if size > self.max_bytes:
                await self._refuse(send)
                return
            more = message.get("more_body", False)
        body: list[Message] = [{"type": "http.request", "body": b"".join(parts)}]

        async def replay() -> Message:
            return body.pop() if body else await receive()

        await self.app(scope, replay, send)

    async def _refuse(self, send: Send) -> None:
        error = {
            "error": f"the request body is larger than {self.max_bytes} bytes "
            "(--max-body); send a shorter question"
        }
        raw = json.dumps(error).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(raw))]
        await send({"type": "http.response.start", "status": 422, "headers": headers})
        await send({"type": "http.response.body", "body": raw})
