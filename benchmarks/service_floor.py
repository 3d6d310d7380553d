"""Where "HTTP adds" comes from: the service in-process, and this machine's floor for a
request that takes a while (docs/notes/2026-12-service.md, fifth pass). Not a test.

    cd benchmarks && ../.venv/bin/python service_floor.py [--pairs 300]

1. **In-process**: the docqa app called as an ASGI function (a prebuilt scope, no socket, no
   client) minus the same library call, paired (order alternating), per mode of ``/search``
   and for ``/ask`` with the extractive model, on bench_service's 100k-chunk index.
2. **The wake-up floor**: a server that works T ms per request (spins), paired with T ms of
   spinning in the client's process, for T = 0, 2 and 12 ms, through three stacks: a raw TCP
   echo with a raw client, bare uvicorn with a raw blocking HTTP/1.1 client, and bare uvicorn
   with aiohttp. What each adds over the in-process work is printed (median ms).
3. **docqa serve through the least a client can do**: the raw HTTP/1.1 client against a real
   ``docqa serve`` (one worker), paired with the library call, per mode and for ``/ask``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # as `docqa serve` runs

from bench_service import BARE, build_index_100k, busy, questions_of


def paired(first: Callable[[int], float], second: Callable[[int], float], n: int) -> float:
    """Median over ``n`` pairs of ``first(i) - second(i)`` (each returns seconds), in ms,
    the order inside each pair alternating."""
    out = []
    for i in range(n):
        if i % 2:
            b = second(i)
            a = first(i)
        else:
            a = first(i)
            b = second(i)
        out.append((a - b) * 1000)
    return statistics.median(out)


def timed(call: Callable[[], object]) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


# --- 1. the service in-process --------------------------------------------------------------


def in_process(pairs: int) -> list[str]:
    from docqa.answering import answer
    from docqa.models import ExtractiveModel
    from docqa.service.app import ServeSettings, create_app
    from docqa.service.live import LiveIndex

    index = build_index_100k()
    questions = questions_of(index)
    live = LiveIndex(index, guard=True, tenant_sets=[])
    model = ExtractiveModel()
    app = create_app(live, model, ServeSettings(max_concurrency=64))
    live.warm()
    loop = asyncio.new_event_loop()

    def via_asgi(path: str, body: dict[str, Any]) -> float:
        raw = json.dumps(body).encode()
        scope = {
            "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
            "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"",
            "root_path": "", "client": ("127.0.0.1", 1), "server": ("127.0.0.1", 2),
            "headers": [(b"host", b"docqa"), (b"content-type", b"application/json"),
                        (b"content-length", str(len(raw)).encode())],
        }  # fmt: skip
        messages = [{"type": "http.request", "body": raw, "more_body": False}]
        sent: list[int] = []

        async def receive() -> dict[str, Any]:
            return messages.pop() if messages else {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                sent.append(message["status"])

        start = time.perf_counter()
        loop.run_until_complete(app(scope, receive, send))
        elapsed = time.perf_counter() - start
        if sent != [200]:
            raise RuntimeError(f"{path}: HTTP {sent}")
        return elapsed

    lines = []
    for mode in ("keyword", "dense", "hybrid"):
        retriever = live.current().retriever(mode, None)

        def http(i: int, mode: str = mode) -> float:
            body = {"question": questions[i % len(questions)], "k": 5, "mode": mode}
            return via_asgi("/search", body)

        def lib(i: int, r: Any = retriever) -> float:
            return timed(lambda: r.search(questions[i % len(questions)], 5))

        for i in range(len(questions)):  # warm-up, outside the timed pairs
            http(i), lib(i)
        lines.append(f"| /search {mode} | {paired(http, lib, pairs):.2f} |")
    hybrid = live.current().retriever("hybrid", None)

    def ask_http(i: int) -> float:
        body = {"question": questions[i % len(questions)], "k": 3, "mode": "hybrid"}
        return via_asgi("/ask", body)

    def ask_lib(i: int) -> float:
        return timed(lambda: answer(questions[i % len(questions)], hybrid, model, 3))

    for i in range(len(questions)):
        ask_http(i), ask_lib(i)
    lines.append(f"| /ask extractive (hybrid) | {paired(ask_http, ask_lib, pairs):.2f} |")
    loop.close()
    return ["| in-process ASGI call minus the library call | ms, paired median |", "|---|---|",
            *lines]  # fmt: skip


# --- 2. the wake-up floor -------------------------------------------------------------------

ECHO = """
import socket, sys, time
srv = socket.create_server(("127.0.0.1", 0))
print(f"listening on http://127.0.0.1:{srv.getsockname()[1]}/", file=sys.stderr, flush=True)
conn, _ = srv.accept()
conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
while data := conn.recv(64):
    end = time.perf_counter() + int(data) / 1e6
    while time.perf_counter() < end:
        pass
    conn.sendall(b"y")
"""


def start(code: str) -> tuple[subprocess.Popen[str], int]:
    proc = subprocess.Popen([sys.executable, "-c", code], stderr=subprocess.PIPE, text=True)
    line = proc.stderr.readline() if proc.stderr else ""
    return proc, int(line.strip().rstrip("/").rsplit(":", 1)[1])


class RawClient:
    """A blocking HTTP/1.1 client over one keep-alive socket: the least a client can do (a
    prebuilt request, the body read by its ``Content-Length``)."""

    def __init__(self, port: int) -> None:
        self.conn = socket.create_connection(("127.0.0.1", port))
        self.conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def post(self, path: str, body: dict[str, Any]) -> bytes:
        raw = json.dumps(body).encode()
        self.conn.sendall(
            b"POST %s HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
            b"content-length: %d\r\n\r\n%s" % (path.encode(), len(raw), raw)
        )
        data = b""
        while b"\r\n\r\n" not in data:
            data += self.conn.recv(65536)
        head, _, rest = data.partition(b"\r\n\r\n")
        if not head.startswith(b"HTTP/1.1 200"):
            raise RuntimeError(f"{path}: {head.splitlines()[0]!r}")
        length = int(re.search(rb"(?i)content-length: *(\d+)", head).group(1))  # type: ignore[union-attr]
        while len(rest) < length:
            rest += self.conn.recv(65536)
        return rest

    def close(self) -> None:
        self.conn.close()


def wake_floor(pairs: int, lengths: tuple[float, ...]) -> list[str]:
    rows = []
    echo, port = start(ECHO)
    conn = socket.create_connection(("127.0.0.1", port))
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def echo_post(ms: float) -> None:
        conn.sendall(b"%d" % int(ms * 1000))
        conn.recv(64)

    bare, bare_port = start(BARE)
    client = RawClient(bare_port)

    def bare_post(ms: float) -> None:
        client.post("/search", {"busy_ms": ms})

    try:
        for name, post in (("raw TCP echo, raw client", echo_post),
                           ("bare uvicorn, raw HTTP/1.1 client", bare_post)):  # fmt: skip
            cells = []
            for ms in lengths:
                for _ in range(20):
                    post(ms)
                cells.append(paired(lambda i, ms=ms, post=post: timed(lambda: post(ms)),
                                    lambda i, ms=ms: timed(lambda: busy(ms / 1000)), pairs))  # fmt: skip
            rows.append(f"| {name} | " + " | ".join(f"{c:.2f}" for c in cells) + " |")
        rows.append("| bare uvicorn, aiohttp client | " + " | ".join(
            f"{c:.2f}" for c in asyncio.run(aiohttp_cells(bare_port, lengths, pairs))) + " |")  # fmt: skip
    finally:
        conn.close()
        client.close()
        for proc in (echo, bare):
            proc.terminate()
            proc.wait(30)
    head = " | ".join(f"T = {ms:g} ms" for ms in lengths)
    return [f"| HTTP adds (ms, paired median), server working T ms | {head} |",
            "|---" * (len(lengths) + 1) + "|", *rows]  # fmt: skip


async def aiohttp_cells(port: int, lengths: tuple[float, ...], pairs: int) -> list[float]:
    import aiohttp

    url = f"http://127.0.0.1:{port}/search"
    cells = []
    async with aiohttp.ClientSession() as session:
        for ms in lengths:
            out = []
            for i in range(pairs + 20):
                lib = timed(lambda ms=ms: busy(ms / 1000))
                begin = time.perf_counter()
                async with session.post(url, json={"busy_ms": ms}) as response:
                    await response.read()
                if i >= 20:  # the first 20: warm-up
                    out.append((time.perf_counter() - begin - lib) * 1000)
            cells.append(statistics.median(out))
    return cells


# --- 3. docqa serve through the least a client can do -------------------------------------


def docqa_raw(pairs: int) -> list[str]:
    """``docqa serve`` (one worker) through :class:`RawClient`, paired with the library call."""
    from bench_service import WORK, Process

    from docqa.answering import answer
    from docqa.collection import Collection
    from docqa.models import ExtractiveModel

    index = build_index_100k()
    questions = questions_of(index)
    collection, model = Collection.open(index), ExtractiveModel()
    serve = Process(
        [sys.executable, "-m", "docqa", "serve", "--index", str(index), "--port", "0",
         "--max-concurrency", "64"],
        WORK / "serve-floor.log",
    )  # fmt: skip
    rows = []
    try:
        serve.wait_ready("/ready")
        client = RawClient(int(serve.url.rsplit(":", 1)[1]))
        for mode in ("keyword", "dense", "hybrid", "ask"):
            retriever = collection.retriever("hybrid" if mode == "ask" else mode)
            path, k = ("/ask", 3) if mode == "ask" else ("/search", 5)

            def http(i: int, path: str = path, k: int = k, mode: str = mode) -> float:
                body = {"question": questions[i % len(questions)], "k": k,
                        "mode": "hybrid" if mode == "ask" else mode}  # fmt: skip
                return timed(lambda: client.post(path, body))

            def lib(i: int, r: Any = retriever, mode: str = mode) -> float:
                q = questions[i % len(questions)]
                return timed(lambda: answer(q, r, model, 3) if mode == "ask" else r.search(q, 5))

            for i in range(len(questions)):  # warm-up, outside the timed pairs
                http(i), lib(i)
            name = "/ask extractive (hybrid)" if mode == "ask" else f"/search {mode}"
            rows.append(f"| {name} | {paired(http, lib, pairs):.2f} |")
        client.close()
    finally:
        serve.stop()
    return ["| docqa serve, raw HTTP/1.1 client: HTTP adds | ms, paired median |", "|---|---|",
            *rows]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=300)
    parser.add_argument("--skip-in-process", action="store_true")
    args = parser.parse_args()
    lines = [f"load average at the start: {' '.join(f'{x:.1f}' for x in os.getloadavg())}", ""]
    if not args.skip_in_process:
        lines += [*in_process(args.pairs), ""]
    lines += [*wake_floor(args.pairs, (0.0, 2.0, 12.0)), "", *docqa_raw(args.pairs)]
    print("\n".join(lines))


if __name__ == "__main__":
    main()
