"""``docqa serve --workers N``: N processes, each with its own event loop, on one port.

One process runs its Python (HTTP parsing, validation, the guard, JSON) on one core at a time
(the GIL), so a service on a multi-core machine runs a process per core. The parent opens the
index (its memory maps are shared with the workers after ``fork``), makes one listening socket
per worker on the same port with ``SO_REUSEPORT`` (the kernel spreads new connections over
them, so a burst of connections cannot all land on the worker that happened to wake first),
forks, and supervises:

- SIGTERM / SIGINT to the parent is passed to every worker, each finishes its in-flight requests
  (``--shutdown-timeout``) and exits; the parent exits 0 when all of them exited 0;
- a worker that exits on its own (a crash) stops the others, and the parent exits 1, so the
  service manager above sees one failed service rather than a silently smaller one.

Each worker has its own :class:`~docqa.service.live.LiveIndex` snapshot check (hot reload holds
per process), its own ``--max-concurrency`` slots (the service-wide bound is N times it) and
writes its own access-log lines, tagged with its pid.

The parent must not have run a search nor started a thread before forking: the kernels'
OpenMP thread pool does not survive ``fork``. Opening the index and making the app do neither;
each worker warms up on its own (the app's lifespan).
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import socket
import sys
from collections.abc import Callable

log = logging.getLogger("docqa.serve")
STOP_SIGNALS = {signal.SIGTERM, signal.SIGINT}


def listeners(
    host: str, port: int, n: int, listen: Callable[..., socket.socket]
) -> list[socket.socket]:
    """``n`` listening sockets on one port (the first picks it when ``port`` is 0), each
    made by ``listen(host, port, reuse_port=True)``."""
    first = listen(host, port, reuse_port=True)
    port = first.getsockname()[1]
    out = [first]
    try:
        out += [listen(host, port, reuse_port=True) for _ in range(n - 1)]
    except BaseException:
        for sock in out:
            sock.close()
        raise
    return out


_HELD: list[int] = []


def hold_stop_signals() -> None:
    """Record SIGTERM / SIGINT from now until :func:`supervise` acts on them. Blocking them
    in the main thread is not enough on its own: a signal sent to the process may be taken by
    any thread that does not block it (NumPy's BLAS starts some at import), and with the
    default disposition it would kill the parent there and then."""
    for signum in STOP_SIGNALS:
        signal.signal(signum, lambda signum, frame: _HELD.append(signum))
    signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)


def fork_workers(sockets: list[socket.socket], work: Callable[[socket.socket], None]) -> list[int]:
    """Fork one worker per socket: worker ``i`` runs ``work(sockets[i])`` and exits (0, or 1
    when it raised); returns the workers' pids. The parent keeps none of the sockets.

    SIGTERM and SIGINT stay blocked from here until the parent (:func:`supervise`) and each
    worker have their own handlers, so a stop sent during start-up is held, never lost, and
    never kills the parent with its workers left running."""
    signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    pids = []
    for mine in sockets:
        pid = os.fork()
        if pid == 0:  # the worker: never returns into the parent's code
            code = 0
            try:
                for other in sockets:
                    if other is not mine:
                        other.close()
                work(mine)
            except BaseException:  # a worker reports whatever ended it, then exits
                log.exception("docqa serve: worker %d failed", os.getpid())
                code = 1
            finally:
                sys.stderr.flush()
                os._exit(code)
        pids.append(pid)
    for sock in sockets:
        sock.close()
    return pids


def supervise(pids: list[int]) -> int:
    """Wait for every worker; pass SIGTERM / SIGINT on to them. 0 when all exited 0 after a
    stop was asked for; 1 when one failed or exited on its own (the others are stopped)."""
    stopping = False

    def stop(signum: int = signal.SIGTERM, frame: object = None) -> None:
        nonlocal stopping
        stopping = True
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
    if _HELD:  # a stop that came during start-up (hold_stop_signals)
        stop()
    failed, left = False, set(pids)
    while left:
        pid, status = os.wait()
        if pid not in left:
            continue
        left.discard(pid)
        code = os.waitstatus_to_exitcode(status)
        if code != 0 or not stopping:
            log.error("docqa serve: worker %d exited (code %d); stopping the others", pid, code)
            failed = True
            stop()
    return 1 if failed else 0
