"""A scripted HTTP server on 127.0.0.1 that stands in for a model backend in tests.

Each request pops the next :class:`Reply` from the script and is recorded as a
:class:`Request`. Streaming bodies go out with chunked transfer encoding, so a reply can stop
mid-body (``drop_after``) the way a dropped connection does, or stall (``stall``) until the test
ends, which a client with a short read timeout sees as a timeout.
"""

from __future__ import annotations

import json
import sys
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    """One scripted response: status, headers, body pieces and how the body ends."""

    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    pieces: list[bytes] = field(default_factory=list)
    drop_after: int | None = None
    stall: bool = False
    keepalive: bytes | None = None  # sent every 50 ms after the pieces, until the test ends


@dataclass
class Request:
    """What the client sent: method, path, headers (lower-case names) and parsed JSON body."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any


class _Server(ThreadingHTTPServer):
    """A stand-in server that lets a client hang up mid-reply (the tests that stop a stream do
    that on purpose) without printing the server thread's traceback; any other error still
    prints."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            return
        super().handle_error(request, client_address)


class StandIn:
    """The server; ``url`` is its root, ``script`` the replies to give, ``requests`` the log."""

    def __init__(self) -> None:
        self.script: list[Reply] = []
        self.requests: list[Request] = []
        self.release = threading.Event()
        self._server = _Server(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        self._server.block_on_close = False
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def start(self) -> StandIn:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.release.set()
        if self._thread.is_alive():
            self._server.shutdown()
        self._server.server_close()


def sse(events: list[tuple[str | None, Any]]) -> list[bytes]:
    """Server-sent events, one piece each: ``event: name`` (when given) and ``data: json``."""
    pieces = []
    for name, data in events:
        payload = data if isinstance(data, str) else json.dumps(data)
        head = f"event: {name}\n" if name else ""
        pieces.append(f"{head}data: {payload}\n\n".encode())
    return pieces


def ndjson(lines: list[Any]) -> list[bytes]:
    """Newline-delimited JSON, one line per piece."""
    return [(json.dumps(line) + "\n").encode() for line in lines]


def _handler_for(standin: StandIn) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            """Silence the default stderr access log."""

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length", "0"))
            raw = self.rfile.read(length)
            headers = {k.lower(): v for k, v in self.headers.items()}
            body = json.loads(raw) if raw else None
            standin.requests.append(Request("POST", self.path, headers, body))
            reply = standin.script.pop(0) if standin.script else Reply(status=599)
            self._send(reply)

        def _send(self, reply: Reply) -> None:
            self.send_response(reply.status)
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.send_header("transfer-encoding", "chunked")
            self.end_headers()
            self.wfile.flush()
            for number, piece in enumerate(reply.pieces):
                if reply.drop_after is not None and number >= reply.drop_after:
                    self.close_connection = True
                    return
                self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                self.wfile.flush()
            if reply.keepalive is not None:
                self._keep_alive(reply.keepalive)
                return
            if reply.stall:
                standin.release.wait(10.0)
                self.close_connection = True
                return
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()

        def _keep_alive(self, piece: bytes) -> None:
            """Keep-alives (at most 10 s of them) until released or the client goes away."""
            for _ in range(200):
                if standin.release.wait(0.05):
                    break
                try:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                    self.wfile.flush()
                except OSError:
                    break
            self.close_connection = True

    return Handler
