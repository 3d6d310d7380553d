"""The answer stream off the event loop: a worker thread drives the (blocking) model stream,
the event loop relays its pieces, and closing the relay cancels the model call.

:func:`relay` yields the items of a blocking iterator produced in a worker thread. When the
consumer stops early (the client disconnected, or the deadline passed) the worker is told to
stop, leaves after the piece it is waiting for and closes the iterator, which closes the model
client's HTTP stream. :func:`sse` frames one server-sent event.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any, TypeVar

import numpy as np

from docqa.errors import ModelTimeout
from docqa.types import Hit

T = TypeVar("T")


class Retrieved:
    """A retriever that hands back hits already retrieved: the service retrieves before a
    stream opens, then gives the answer path these hits."""

    def __init__(self, hits: Sequence[Hit]) -> None:
        self.hits = list(hits)

    def search(self, question: str, k: int, *, mask: np.ndarray | None = None) -> list[Hit]:
        return self.hits[:k]


def sse(data: Any, event: str | None = None) -> str:
    """One event: ``event: NAME`` (when given) and one ``data:`` line of JSON (a str ``data``
    that is ``[DONE]`` goes out bare)."""
    payload = data if data == "[DONE]" else json.dumps(data, ensure_ascii=False)
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {payload}\n\n"


def _work(items: Iterator[T], put: Any, stop: threading.Event, every: bool) -> None:
    last: Any = None
    try:
        for item in items:
            if stop.is_set():
                return
            if every:
                put(("item", item))
            else:
                last = item
        put(("end", None) if every else ("last", last))
    except Exception as exc:  # noqa: BLE001 (handed to the event loop, raised there)
        put(("error", exc))
    finally:
        close = getattr(items, "close", None)
        if close is not None:
            close()


async def relay(items: Iterator[T], timeout: float, *, every: bool = True) -> AsyncIterator[T]:
    """The items of ``items`` (iterated in a worker thread), raising what it raises;
    :class:`ModelTimeout` when it has not finished ``timeout`` seconds after the start.
    ``every=False``: only the last item, handed over once at the end (one wake-up of the
    event loop instead of one per piece: for ``/ask``, which answers in one body)."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
    stop = threading.Event()

    def put(message: tuple[str, Any]) -> None:
        try:
            loop.call_soon_threadsafe(queue.put_nowait, message)
        except RuntimeError:  # the loop has closed: nobody is listening any more
            stop.set()

    threading.Thread(target=_work, args=(items, put, stop, every), daemon=True).start()
    deadline = loop.time() + timeout
    try:
        while True:
            try:
                kind, value = await asyncio.wait_for(queue.get(), deadline - loop.time())
            except TimeoutError:
                raise ModelTimeout(
                    f"the answer took longer than {timeout:g} s (--model-timeout); "
                    "ask again or raise the limit"
                ) from None
            if kind == "error":
                raise value
            if kind != "end":
                yield value
            if kind != "item":
                return
    finally:
        stop.set()
