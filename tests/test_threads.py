"""``docqa.threads``: the build's small stand-ins for a thread pool."""

from __future__ import annotations

import threading
import time

import pytest

from docqa.threads import Background, each_at_once


def test_background_returns_the_value_computed_on_another_thread() -> None:
    caller = threading.get_ident()
    job = Background(lambda a, b: (a + b, threading.get_ident()), 2, 3)
    value, worker = job.result()
    assert value == 5
    assert worker != caller
    assert job.result() == (5, worker)  # asked again: the same answer


def test_background_raises_the_error_on_the_caller_thread() -> None:
    def fail() -> None:
        raise OSError(28, "No space left on device")

    job = Background(fail)
    job.wait()  # waiting does not raise
    with pytest.raises(OSError, match="No space left"):
        job.result()


def test_background_starts_at_once() -> None:
    started = threading.Event()
    job = Background(started.set)
    assert started.wait(5)
    job.result()


@pytest.mark.parametrize("threads", [1, 2, 3, 8])
@pytest.mark.parametrize("n", [0, 1, 2, 5, 17])
def test_each_at_once_calls_every_item_once(threads: int, n: int) -> None:
    seen: list[int] = []
    lock = threading.Lock()

    def work(item: int) -> None:
        with lock:
            seen.append(item)

    each_at_once(work, list(range(n)), threads)
    assert sorted(seen) == list(range(n))


def test_each_at_once_runs_the_calls_at_the_same_time() -> None:
    barrier = threading.Barrier(3, timeout=5)  # breaks (and raises) unless 3 calls meet
    each_at_once(lambda _: barrier.wait(), range(3), 3)


def test_each_at_once_waits_for_every_call_before_raising() -> None:
    done: list[int] = []

    def work(item: int) -> None:
        if item == 0:
            raise ValueError("item 0")
        time.sleep(0.05)
        done.append(item)

    with pytest.raises(ValueError, match="item 0"):
        each_at_once(work, [0, 1, 2, 3], 4)
    assert sorted(done) == [1, 2, 3]


def test_each_at_once_raises_a_helper_error() -> None:
    def work(item: int) -> None:
        if item == 3:
            raise KeyError(item)

    with pytest.raises(KeyError):
        each_at_once(work, [0, 1, 2, 3], 2)  # item 3 is the second thread's


def test_a_build_worker_keeps_to_its_share_of_the_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    from docqa import threads

    monkeypatch.setattr(threads, "_share", None)
    monkeypatch.setattr(threads.os, "sched_getaffinity", lambda pid: {0, 1, 2, 3, 4})
    assert threads.cores() == 5
    threads.share_cores(2)
    assert threads.cores() == 2
    threads.share_cores(2)  # set again (a reused process): from the cores, not the old share
    assert threads.cores() == 2
    threads.share_cores(8)
    assert threads.cores() == 1  # never zero
