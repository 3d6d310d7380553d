"""``docqa serve``'s runner: open the index, check keys and address, bind, serve with uvicorn
(imported when called) until SIGTERM / Ctrl-C. Its options are :mod:`docqa.cli.serve`."""

from __future__ import annotations

import argparse
import logging
import math
import signal
import socket
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from docqa.cli.words import count
from docqa.errors import InputError

if TYPE_CHECKING:
    import uvicorn
    from fastapi import FastAPI

    from docqa.retrieve.guard_settings import GuardRequest
    from docqa.service.app import ServeSettings
    from docqa.service.keys import KeyRing
    from docqa.service.live import Live

STOP_SIGNALS = {signal.SIGTERM, signal.SIGINT}


def is_loopback(host: str) -> bool:
    """True when every address ``host`` resolves to is a loopback address."""
    import ipaddress

    try:
        infos = socket.getaddrinfo(host, None)
    except socket.gaierror:
        return False
    return bool(infos) and all(ipaddress.ip_address(i[4][0]).is_loopback for i in infos)


def bind(host: str, port: int, *, reuse_port: bool = False) -> socket.socket:
    """A listening TCP socket on ``host:port`` (InputError naming both when it cannot);
    ``reuse_port``: one of several on the same port (``--workers``), via SO_REUSEPORT."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # proto must say TCP: asyncio sets TCP_NODELAY only on accepted sockets whose proto is
    # IPPROTO_TCP, and without it every small response waits ~40 ms for a delayed ACK (Nagle)
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if reuse_port:
        if not hasattr(socket, "SO_REUSEPORT"):
            sock.close()
            raise InputError("--workers needs SO_REUSEPORT, which this system lacks; use 1")
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise InputError(f"cannot listen on {host}:{port} ({exc.strerror}); choose another --port")
    sock.listen(2048)
    return sock


def _logging(workers: int) -> None:
    handler = logging.StreamHandler(sys.stderr)
    pid = " [%(process)d]" if workers > 1 else ""
    handler.setFormatter(logging.Formatter(f"%(asctime)s{pid} %(message)s"))
    for name in ("docqa.serve", "docqa.serve.access"):
        logger = logging.getLogger(name)
        logger.setLevel(logging.INFO)
        logger.addHandler(handler)
        logger.propagate = False


def run_serve(args: argparse.Namespace) -> int:
    """Open the index, check keys and address, then serve until SIGTERM / Ctrl-C (exit 0)."""
    from docqa.build import default_index_dir
    from docqa.cli.commands import make_model
    from docqa.cli.store import uses_store
    from docqa.service.app import create_app
    from docqa.service.keys import load_keys
    from docqa.service.live import LiveIndex

    keys = load_keys(args.keys_file)
    if keys is None and not is_loopback(args.host):
        raise InputError(
            f"refusing to serve {args.host} without API keys: set DOCQA_SERVE_KEYS or pass "
            "--keys-file, or serve on 127.0.0.1"
        )
    tenant_sets = [g.tenants for g in keys.grants()] if keys else []
    guard = _serve_guard(args.min_score, args.drift_model)
    live: Live
    if uses_store(args):
        live, what = _store_live(args, guard, tenant_sets)
    else:
        root = args.index if args.index is not None else default_index_dir()
        live = LiveIndex(root, guard=guard, tenant_sets=tenant_sets)
        what = f"index {root}, {count(live.current().chunks, 'chunk')}"
    app = create_app(live, make_model(args), _settings(args, keys))
    sockets = _listen(args.host, args.port, args.workers)
    host, port = sockets[0].getsockname()[:2]
    _logging(args.workers)
    if args.workers > 1:  # held from before the port is announced (see fork_workers)
        from docqa.service.workers import hold_stop_signals

        hold_stop_signals()
    _announce(host, port, what, keys, args.workers)

    if args.workers == 1:
        _run(app, sock=sockets[0], shutdown_timeout=args.shutdown_timeout)
        return 0

    def work(sock: socket.socket) -> None:
        # warm before serving: a connection the kernel hands this worker waits in its backlog
        # rather than meeting a 503 from a cold worker after another one said /ready
        _run(app, sock, args.shutdown_timeout, before=live.warm)

    from docqa.service.workers import fork_workers, supervise

    return supervise(fork_workers(sockets, work))


def _store_live(
    args: argparse.Namespace, guard: GuardRequest, tenant_sets: list[frozenset[str] | None]
) -> tuple[Live, str]:
    """``docqa serve --store``: the store's live view (one worker: one connection), and the
    words that announce it."""
    from docqa.cli.store import open_store
    from docqa.stores.serving import StoreLive

    if args.workers > 1:
        raise InputError("--workers applies to an index folder; serve a store with one worker")
    store = open_store(args)  # open while the service runs
    live = StoreLive(store, guard=guard, tenant_sets=tenant_sets)
    what = (
        f"collection {store.collection!r} at {store.where}, {count(live.current().chunks, 'chunk')}"
    )
    return live, what


def _announce(host: str, port: int, what: str, keys: KeyRing | None, workers: int) -> None:
    logging.getLogger("docqa.serve").info(
        "docqa serve: http://%s:%d/ (%s, %s%s)",
        host if ":" not in host else f"[{host}]",
        port,
        what,
        count(len(keys), "key") if keys else "no keys: loopback only",
        f", {count(workers, 'worker')}" if workers > 1 else "",
    )


def _listen(host: str, port: int, workers: int) -> list[socket.socket]:
    if workers == 1:
        return [bind(host, port)]
    from docqa.service.workers import listeners

    return listeners(host, port, workers, bind)


def _settings(args: argparse.Namespace, keys: KeyRing | None) -> ServeSettings:
    from docqa.pricing import load_prices
    from docqa.service.app import ServeSettings

    return ServeSettings(
        keys=keys,
        max_concurrency=args.max_concurrency,
        max_question=args.max_question,
        max_body=args.max_body,
        model_timeout=args.model_timeout,
        prices=load_prices(),
        name=args.name,
    )


def server(app: FastAPI, shutdown_timeout: float) -> uvicorn.Server:
    """The uvicorn server ``docqa serve`` runs ``app`` with (run it on a :func:`bind` socket)."""
    import uvicorn

    config = uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        timeout_graceful_shutdown=math.ceil(shutdown_timeout),
        lifespan="on",
    )
    return uvicorn.Server(config)


def _run(
    app: FastAPI,
    sock: socket.socket,
    shutdown_timeout: float,
    before: Callable[[], None] | None = None,
) -> None:
    """Run ``before()`` (a worker's warm-up), then serve ``app`` on ``sock`` until stopped."""
    srv = server(app, shutdown_timeout)

    def stopped(signum: int, frame: object) -> None:
        # before uvicorn takes the signals: stop as soon as it has started (rather than losing
        # the signal); after its graceful shutdown, where it re-raises the signal it stopped
        # for: nothing left to do, so the exit code is 0
        srv.should_exit = True

    signal.signal(signal.SIGTERM, stopped)
    signal.signal(signal.SIGINT, stopped)
    # a worker starts with both blocked (see fork_workers): one sent meanwhile arrives here
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
    if before is not None:
        before()
    srv.run(sockets=[sock])
    logging.getLogger("docqa.serve").info("docqa serve: stopped")


def _serve_guard(min_score: float | None, drift_model: str | None) -> GuardRequest:
    """Each opened index's own guard (calibrated by ``docqa calibrate``, else the defaults),
    with the command line's changes: ``--min-score`` adds the absolute score floors of both
    sides (one guard serves every mode), ``--drift-model`` names the drift rule's model."""
    from docqa.retrieve.guard_settings import guard_changes

    return guard_changes(min_score=min_score, drift_model=drift_model) or True
