"""A slow OpenAI-compatible chat server on 127.0.0.1: streams ``pieces`` words ``delay``
seconds apart and records whether each stream was finished or cut off by the client."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class SlowModel:
    def __init__(self, pieces: int = 20, delay: float = 0.1, text: str = "word") -> None:
        self.pieces, self.delay, self.text = pieces, delay, text
        self.started = 0
        self.finished = 0
        self.aborted = 0
        self.sent: list[int] = []  # pieces sent per aborted stream
        self.lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def start(self) -> SlowModel:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def chunk(self, content: str | None, finish: str | None) -> bytes:
        body: dict[str, Any] = {
            "id": "c1",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": "slow",
            "choices": [{"index": 0, "delta": {"content": content}, "finish_reason": finish}]
            if content is not None or finish
            else [],
        }
        return f"data: {json.dumps(body)}\n\n".encode()


def _handler(model: SlowModel) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet."""

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length", "0")))
            with model.lock:
                model.started += 1
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("transfer-encoding", "chunked")
            self.end_headers()
            sent = 0
            try:
                for number in range(model.pieces):
                    self._write(model.chunk(f"{model.text}{number} ", None))
                    sent += 1
                    time.sleep(model.delay)
                self._write(model.chunk(None, "stop"))
                self._write(b"data: [DONE]\n\n")
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()
            except OSError:
                with model.lock:
                    model.aborted += 1
                    model.sent.append(sent)
                self.close_connection = True
                return
            with model.lock:
                model.finished += 1

        def _write(self, data: bytes) -> None:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.flush()

    return Handler
