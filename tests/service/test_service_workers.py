"""`docqa serve --workers N`: N processes on one port (SO_REUSEPORT), each warmed before it
serves; keys, tenants, hot reload and graceful shutdown hold in every worker. Real
subprocesses on 127.0.0.1, every loop bounded in count and time."""

from __future__ import annotations

import os
import re
import signal
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from service_helpers import KEYS, Server, Stream, TwoVersions, bearer, serving
from slow_model import SlowModel

from docqa.cli.serving import bind
from docqa.service.workers import listeners

ACME, GLOBEX, BOTH, ADMIN = KEYS
FINE = "How much is the overdue fine for a book?"
MODEL_ENV = {"OPENAI_API_KEY": "openai-test-key-not-a-secret", "DOCQA_MODEL": "slow",
             "DOCQA_MAX_TOKENS": "50"}  # fmt: skip
WORKER_LINE = re.compile(r"\[(\d+)\] POST /search 200 ")


def _wait(condition: object, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():  # type: ignore[operator]
            return True
        time.sleep(0.02)
    return False


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().rsplit(")", 1)[1].split()[0] == "Z")


def test_listeners_share_one_port_with_reuseport() -> None:
    socks = listeners("127.0.0.1", 0, 3, bind)
    try:
        ports = {s.getsockname()[1] for s in socks}
        assert len(ports) == 1 and len(socks) == 3
        for sock in socks:
            assert sock.getsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT) == 1
            assert sock.proto == socket.IPPROTO_TCP
        # an unrelated socket without SO_REUSEPORT cannot take the port
        with pytest.raises(OSError):
            socket.create_server(("127.0.0.1", ports.pop()))
    finally:
        for sock in socks:
            sock.close()


@pytest.fixture(scope="module")
def two(tenant_index: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    log = tmp_path_factory.mktemp("workers") / "serve.log"
    with serving("--index", str(tenant_index), "--workers", "2", "--backend", "fake", log=log) as s:
        yield s


def test_two_workers_both_serve_with_each_keys_tenants(two: Server) -> None:
    assert "2 workers" in two.log()
    workers = two.children()
    assert len(workers) == 2
    question = {"question": "fines printing rooms errors loans", "k": 20, "mode": "keyword"}
    seen: set[int] = set()
    for i in range(200):  # a new connection each time: the kernel spreads them over workers
        key = (ACME, GLOBEX)[i % 2]
        response = httpx.post(two.url + "/search", json=question, headers=bearer(key), timeout=30)
        assert response.status_code == 200
        tenants = {h["source"].split("/")[0] for h in response.json()["hits"]}
        assert tenants == {"acme" if key == ACME else "globex"}
        assert httpx.post(two.url + "/search", json=question, timeout=30).status_code == 401
        seen = {int(pid) for pid in WORKER_LINE.findall(two.log())}
        if i >= 10 and len(seen) == 2:
            break
    assert seen == set(workers)
    assert ACME not in two.log() and GLOBEX not in two.log()


def _slow_two(index: Path, model: SlowModel, log: Path) -> Server:
    return Server(
        "--index", str(index), "--workers", "2", "--backend", "openai", "--base-url", model.url,
        env=MODEL_ENV, log=log,
    ).start()  # fmt: skip


def test_sigterm_stops_every_worker_after_in_flight_streams(
    tenant_index: Path, slow_model: SlowModel, tmp_path: Path
) -> None:
    server = _slow_two(tenant_index, slow_model, tmp_path / "serve.log")
    slow_model.pieces = 30  # a 3 s answer: SIGTERM lands well inside it
    stream = Stream(server.url, FINE)
    workers = server.children()
    try:
        stream.thread.start()
        assert _wait(lambda: slow_model.started == 1, 15.0)
        server.proc.send_signal(signal.SIGTERM)
        assert server.proc.wait(30) == 0
        assert "word29" in stream.answer() and slow_model.finished == 1
        assert not any(_alive(pid) for pid in workers)
    finally:
        server.stop()


def test_a_worker_that_dies_stops_the_service_with_exit_1(
    tenant_index: Path, tmp_path: Path
) -> None:
    server = Server("--index", str(tenant_index), "--workers", "2", log=tmp_path / "s.log")
    try:
        server.start()
        first, second = server.children()
        os.kill(first, signal.SIGKILL)
        assert server.proc.wait(30) == 1
        assert _wait(lambda: not _alive(second), 10.0)
        assert f"worker {first} exited" in server.log()
    finally:
        server.stop()


def test_every_worker_picks_up_a_rebuilt_index(tmp_path: Path) -> None:
    versions = TwoVersions(tmp_path)
    index = versions.index
    server = Server("--index", str(index), "--workers", "2", log=tmp_path / "serve.log")
    body = {"question": FINE}

    def answer() -> str:  # a new connection each time, so both workers are asked
        response = httpx.post(server.url + "/ask", json=body, timeout=30)
        assert response.status_code == 200, response.text
        return str(response.json()["answer"])

    try:
        server.start()
        assert "ten cents" in answer()
        versions.rebuild()
        streak, deadline = 0, time.monotonic() + 60
        while streak < 30 and time.monotonic() < deadline:  # 30 new answers in a row
            streak = streak + 1 if "twenty cents" in answer() else 0
        assert streak == 30, server.log()
        reloaded = {int(p) for p in re.findall(r"\[(\d+)\] docqa serve: reloaded", server.log())}
        assert reloaded == set(server.children())
    finally:
        server.stop()


def test_sigterm_during_start_up_still_stops_everything_with_exit_0(
    tenant_index: Path, tmp_path: Path
) -> None:
    """Sent as soon as the port is announced (the workers are being forked and warmed): the
    signal is held until every process has its handler, never lost."""
    server = Server("--index", str(tenant_index), "--workers", "2", log=tmp_path / "s.log")
    try:
        assert _wait(lambda: "docqa serve: http://" in server.log(), 60.0), server.log()
        server.proc.send_signal(signal.SIGTERM)
        assert _wait(lambda: len(server.children()) == 0, 60.0)
        assert server.proc.wait(30) == 0, server.log()
    finally:
        server.stop()
