"""A loopback stand-in for embedding servers (Ollama ``/api/embed``, OpenAI ``/embeddings``).

Each input text gets a deterministic vector (its bytes' sha256, as 8 numbers, not unit length
so the client must normalise). ``failures`` holds statuses (with an optional Retry-After) to
answer before any success; ``delay`` holds each request open so concurrency can be seen;
``max_in_flight`` is the most requests the server ever held at once.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def vector_of(text: str) -> list[float]:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return [float(b) - 100.0 for b in digest[:8]]


@dataclass
class Seen:
    path: str
    headers: dict[str, str]
    body: Any
    at: float


@dataclass
class EmbedStandIn:
    delay: float = 0.0
    failures: list[tuple[int, str | None]] = field(default_factory=list)
    status: int = 200
    error_body: str = ""
    requests: list[Seen] = field(default_factory=list)
    max_in_flight: int = 0
    _in_flight: int = 0

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def answer(
        self, path: str, headers: dict[str, str], body: Any
    ) -> tuple[int, dict[str, str], bytes]:
        with self._lock:
            self.requests.append(Seen(path, headers, body, time.monotonic()))
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)
            failure = self.failures.pop(0) if self.failures else None
        try:
            time.sleep(self.delay)
            if failure is not None:
                status, retry_after = failure
                return status, ({"Retry-After": retry_after} if retry_after else {}), b"busy"
            if self.status != 200:
                return self.status, {}, self.error_body.encode()
            rows = [vector_of(t) for t in body["input"]]
            if path.endswith("/api/embed"):
                reply: Any = {"model": body["model"], "embeddings": rows}
            else:  # OpenAI: data entries may come in any order; send them reversed
                data = [{"index": i, "embedding": r} for i, r in enumerate(rows)]
                reply = {"data": data[::-1], "model": body["model"]}
            return 200, {"Content-Type": "application/json"}, json.dumps(reply).encode()
        finally:
            with self._lock:
                self._in_flight -= 1


def _handler(standin: EmbedStandIn) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            """No access log."""

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("content-length", "0")))
            headers = {k.lower(): v for k, v in self.headers.items()}
            status, extra, payload = standin.answer(self.path, headers, json.loads(raw))
            try:
                self.send_response(status)
                for name, value in extra.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True  # the client gave up (a timeout test)

    return Handler
