"""Work on other threads, for the build's paths where ``concurrent.futures`` costs more than
the work it runs.

``concurrent.futures`` imports ``logging``: 4-6 ms of every ``docqa index``, which otherwise
needs neither (a small update does about 100 ms of its own work). What the build asks of a
pool is this little: one call run beside the caller (``Background``) and calls run all at once
(``each_at_once``: the fsyncs, the embedder's helpers). The query side, where a pool lives as
long as the service, keeps ``concurrent.futures``.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar

R = TypeVar("R")
T = TypeVar("T")

_share: int | None = None  # this process's share of the cores, set in a build's workers


def cores() -> int:
    """The cores this process should keep busy: its share when a build's worker process
    (:func:`share_cores`), else the cores it may run on."""
    if _share is not None:
        return _share
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def share_cores(workers: int) -> None:
    """Note that this process is one of ``workers`` processes sharing the cores, so what sizes
    its thread pools by :func:`cores` (MiniLM's runtime) does not oversubscribe them."""
    global _share  # one value per process, set once by the worker's initializer
    _share = None
    _share = max(1, cores() // max(1, workers))


class Background(Generic[R]):
    """``work(*args)`` run on a thread of its own, started at once; ``result()`` waits for it
    and returns what it returned or raises what it raised."""

    def __init__(self, work: Callable[..., R], *args: Any) -> None:
        self._out: tuple[bool, R | BaseException] | None = None
        self._thread = threading.Thread(target=self._run, args=(work, args))
        self._thread.start()

    def _run(self, work: Callable[..., R], args: tuple[Any, ...]) -> None:
        try:
            self._out = (True, work(*args))
        except BaseException as exc:  # noqa: BLE001 (raised by result(), on the caller's thread)
            self._out = (False, exc)

    def wait(self) -> None:
        """Wait for the work to end (its error, if any, is kept for ``result``)."""
        self._thread.join()

    def result(self) -> R:
        self._thread.join()
        assert self._out is not None
        ok, value = self._out
        if not ok:
            assert isinstance(value, BaseException)
            raise value
        return value  # type: ignore[return-value]


def each_at_once(work: Callable[[T], object], items: Sequence[T], threads: int) -> None:
    """``work(item)`` for every item, on up to ``threads`` threads at once (this one among
    them; the items dealt out in turn). Every call ends before this returns; the first error
    raised, in the order of the items' threads, is raised then."""
    groups = [items[i::threads] for i in range(min(max(threads, 1), len(items)))]
    if len(groups) <= 1:
        for item in items:
            work(item)
        return
    helpers = [Background(_each, work, group) for group in groups[1:]]
    error: BaseException | None = None
    try:
        _each(work, groups[0])
    except BaseException as exc:  # noqa: BLE001 (raised below, once every helper has ended)
        error = exc
    for helper in helpers:
        try:
            helper.result()
        except BaseException as exc:  # noqa: BLE001 (as above)
            error = error or exc
    if error is not None:
        raise error


def _each(work: Callable[[T], object], items: Sequence[T]) -> None:
    for item in items:
        work(item)
