"""Group results through shared memory instead of the pool's pipe.

A result sent back through ``ProcessPoolExecutor`` is pickled in the worker, written into a
pipe, read back into a growing buffer by the parent's result thread and unpickled: four
copies of every record, vector and posting, each into freshly faulted pages, and most of it
on the parent's CPU, which the two workers need (on 2 cores the parent's CPU is the
workers' wall time). With forked workers the parent maps ``Slots`` (anonymous, shared)
before the fork; a worker writes a result's arrays into the slot its task names (one copy,
into pages touched before) and sends back only their layout and the small parts (``Packed``);
the parent reads them as views (no copy) and writes them to the index. A slot is reused
only after the parent has taken the result in it (``stream.results``); a result that does
not fit its slot, and every result of a fork-server pool (which cannot inherit the map),
goes through the pipe as before: the same values either way.
"""

from __future__ import annotations

import mmap
from dataclasses import dataclass
from typing import cast

import numpy as np

from docqa.pipeline.work import FileResult, Postings, Result, Task, ignore_interrupts, parts

SLOT_BYTES = 8 << 20  # a 1 MB group gives ~3 MB (256 dimensions); larger ones use the pipe
_ALIGN = 64
Layout = tuple[int, str, tuple[int, ...]]  # (offset in the slot, dtype, shape)


class Slots:
    """``count`` shared buffers of ``size`` bytes, inherited by forked workers."""

    def __init__(self, count: int, size: int = SLOT_BYTES) -> None:
        self.count, self.size = count, size
        self.buffer = mmap.mmap(-1, count * size)  # MAP_SHARED | MAP_ANONYMOUS

    def view(self, slot: int, layout: Layout) -> np.ndarray:
        """The array at ``layout`` in ``slot`` (a view: valid until the slot is reused)."""
        offset, dtype, shape = layout
        dt = np.dtype(dtype)
        count = int(np.prod(shape, dtype=np.int64))
        start = slot * self.size + offset
        return np.frombuffer(self.buffer, dt, count, start).reshape(shape)


@dataclass(frozen=True, slots=True)
class Packed:
    """A ``Result`` whose arrays are in slot ``slot``: records, record lengths, vectors (or
    None), postings' hashes, rows, tf and lengths, in that order."""

    slot: int
    files: tuple[FileResult, ...]
    layouts: tuple[Layout | None, ...]
    texts: tuple[str, ...]


_SLOTS: Slots | None = None  # in a forked worker: the parent's slots


def init_worker(slots: Slots | None, parent: int | None = None, workers: int = 1) -> None:
    """Worker initializer: note the shared slots (None: results go through the pipe) and this
    worker's share of the cores (one of ``workers``); end with the build process ``parent``
    (see ``die_with_parent``)."""
    from docqa.threads import share_cores

    global _SLOTS
    _SLOTS = slots
    share_cores(workers)
    ignore_interrupts()
    if parent is not None:
        die_with_parent(parent)


def die_with_parent(parent: int) -> None:
    """Have Linux kill this worker when ``parent`` (the thread that started it) ends: a
    build killed with SIGKILL cannot stop its pool, whose workers would wait for tasks
    forever. Exits at once when ``parent`` is gone already; elsewhere than Linux, nothing."""
    import ctypes
    import os
    import signal

    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (AttributeError, OSError):
        return
    pr_set_pdeathsig = 1
    prctl(pr_set_pdeathsig, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # died before the call above: no signal will come
        os._exit(1)


def run_in_slot(task: Task, slot: int) -> Result | Packed | list[Result]:
    """``work.parts``: one result, its arrays written into ``slot`` when there are slots and
    they fit; a large file's parts as they are (through the pipe)."""
    got = list(parts(task))
    if len(got) > 1:
        return got
    return got[0] if _SLOTS is None else pack(got[0], _SLOTS, slot)


def _arrays(result: Result) -> tuple[np.ndarray | None, ...]:
    p = result.postings
    records = np.frombuffer(result.records, np.uint8)
    return (records, result.record_lengths, result.vectors, p.hashes, p.rows, p.tf, p.lengths)


def pack(result: Result, slots: Slots, slot: int) -> Result | Packed:
    """``result`` with its arrays copied into ``slot``, or itself if they do not fit."""
    arrays = _arrays(result)
    ends, offset = [], 0
    for arr in arrays:
        offset = -(-offset // _ALIGN) * _ALIGN
        ends.append(offset)
        offset += 0 if arr is None else arr.nbytes
    if offset > slots.size:
        return result
    layouts: list[Layout | None] = []
    for start, arr in zip(ends, arrays, strict=True):
        if arr is None:
            layouts.append(None)
            continue
        layout = (start, arr.dtype.str, arr.shape)
        slots.view(slot, layout)[...] = arr
        layouts.append(layout)
    return Packed(slot, result.files, tuple(layouts), result.texts)


def unpacked(got: Result | Packed | list[Result], slots: Slots | None) -> list[Result]:
    """The ``Result``s a worker sent (``run_in_slot``), in order."""
    return got if isinstance(got, list) else [unpack(got, slots)]


def unpack(got: Result | Packed, slots: Slots | None) -> Result:
    """The ``Result`` a worker sent: itself, or views of its arrays in the slots."""
    if isinstance(got, Result):
        return got
    assert slots is not None
    arrays = [None if lay is None else slots.view(got.slot, lay) for lay in got.layouts]
    records, lengths, vectors, hashes, rows, tf, row_lengths = arrays
    assert records is not None and lengths is not None and hashes is not None
    assert rows is not None and tf is not None and row_lengths is not None
    return Result(
        files=got.files,
        # a view, not bytes: ``stream.Pass.take`` only slices it through a memoryview
        records=cast(bytes, records.data),
        record_lengths=lengths,
        vectors=vectors,
        postings=Postings(hashes, rows, tf, row_lengths),
        texts=got.texts,
    )
