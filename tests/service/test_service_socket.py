"""The listening socket of `docqa serve`: every accepted connection has TCP_NODELAY set.

Without it a small response waits for the client's delayed ACK (~40 ms, Nagle). asyncio sets
TCP_NODELAY only on accepted sockets whose protocol is IPPROTO_TCP, so ``bind()`` must say so.
Checked on the socket options themselves, never by timing."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Iterator

import httpx
import pytest

from docqa.cli.serving import bind, server
from docqa.errors import InputError
from docqa.models import ExtractiveModel
from docqa.service.app import ServeSettings, create_app
from docqa.service.live import LiveIndex


def _nodelay(sock: socket.socket) -> bool:
    return bool(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))


async def _accepted_nodelay(listening: socket.socket) -> bool:
    """Whether asyncio's accepted connection on ``listening`` has TCP_NODELAY set."""
    seen: asyncio.Future[bool] = asyncio.get_running_loop().create_future()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        seen.set_result(_nodelay(writer.get_extra_info("socket")))
        writer.close()

    srv = await asyncio.start_server(handle, sock=listening)
    async with srv:
        host, port = listening.getsockname()[:2]
        _, writer = await asyncio.wait_for(asyncio.open_connection(host, port), 10)
        try:
            return await asyncio.wait_for(seen, 10)
        finally:
            writer.close()


def _ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as probe:
            probe.bind(("::1", 0))
    except OSError:
        return False
    return True


@pytest.mark.parametrize("host", ["127.0.0.1", "::1"])
def test_bind_makes_asyncio_set_nodelay_on_accepted_connections(host: str) -> None:
    if host == "::1" and not _ipv6_loopback():
        pytest.skip("this machine has no IPv6 loopback")
    listening = bind(host, 0)
    assert listening.proto == socket.IPPROTO_TCP
    assert asyncio.run(_accepted_nodelay(listening)) is True


def test_the_check_sees_a_socket_without_the_protocol() -> None:
    """A listening socket made with proto 0 (the old bug) gets no TCP_NODELAY: the check above
    can tell the difference."""
    plain = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    plain.bind(("127.0.0.1", 0))
    plain.listen(8)
    assert asyncio.run(_accepted_nodelay(plain)) is False


def test_bind_names_the_address_it_cannot_use() -> None:
    taken = bind("127.0.0.1", 0)
    port = taken.getsockname()[1]
    taken.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 0)
    with pytest.raises(InputError, match=f"127.0.0.1:{port}.*--port"):
        bind("127.0.0.1", port)
    taken.close()


@pytest.fixture
def running(live: LiveIndex) -> Iterator[tuple[str, object]]:
    """The service app under ``docqa serve``'s own uvicorn server, in a thread."""
    app = create_app(live, ExtractiveModel(), ServeSettings())
    sock = bind("127.0.0.1", 0)
    srv = server(app, 5.0)
    thread = threading.Thread(target=lambda: asyncio.run(srv.serve(sockets=[sock])))
    thread.start()
    deadline = time.monotonic() + 30
    while not srv.started and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert srv.started, "uvicorn did not start"
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}", srv
    finally:
        srv.should_exit = True
        thread.join(30)
        sock.close()


def test_the_service_server_sets_nodelay_on_its_connections(
    running: tuple[str, object],
) -> None:
    url, srv = running
    with httpx.Client(base_url=url, timeout=10) as client:  # keep-alive: the connection stays
        for path in ("/health", "/ready"):
            assert client.get(path).status_code == 200
        connections = list(srv.server_state.connections)  # type: ignore[attr-defined]
        assert connections, "the server holds no connection"
        for protocol in connections:
            assert _nodelay(protocol.transport.get_extra_info("socket"))
