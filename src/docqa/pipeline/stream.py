"""The streaming build: groups of files go to workers; their results are written in order.

Files are cut into groups by size alone (``GROUP_BYTES`` / ``GROUP_FILES``), so the groups,
and therefore every byte written, are the same for any worker count. ``workers=1`` runs each
group in this process; more start that many worker processes (forked, or from a fork server, see
``_context``) and keep at most
two groups per worker in flight, so memory is bounded by the in-flight groups plus the
postings budget, not by the collection. Results are consumed in submission order: row ids
follow the load order.

Rows of files whose bytes did not change since ``previous`` was built are copied from it
(chunk records, vectors, BM25 lengths and postings) without parsing the file again; the
records and vectors by the kernel (:mod:`docqa.pipeline.copying`).
"""

from __future__ import annotations

import gc
import hashlib
import os
import signal
import threading
import warnings
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

import numpy as np

from docqa.index.builder import IndexBuilder
from docqa.index.reader import Index
from docqa.pipeline import transport
from docqa.pipeline.copying import OldFiles
from docqa.pipeline.postings import PostingRuns
from docqa.pipeline.reuse import OldPostings
from docqa.pipeline.sources import Stat
from docqa.pipeline.work import FileResult, Result, Task, parts
from docqa.text.documents import SkippedFile
from docqa.text.loaders import SkippedFileWarning
from docqa.text.reading import read_bytes

if TYPE_CHECKING:
    from concurrent.futures import Future
    from multiprocessing.context import BaseContext

GROUP_BYTES = 1 << 20
GROUP_FILES = 256
POOL_BYTES = 4 << 20  # less to parse than this is done in this process: starting workers
# costs about as much as parsing it
Progress = Callable[[str, int, int], None]


def groups(files: Sequence[tuple[Path, str, int]]) -> Iterator[list[tuple[Path, str]]]:
    """Consecutive files ``(path, source, size)`` cut after ``GROUP_BYTES`` or
    ``GROUP_FILES``."""
    group: list[tuple[Path, str]] = []
    size = 0
    for path, source, n in files:
        group.append((path, source))
        size += n
        if size >= GROUP_BYTES or len(group) >= GROUP_FILES:
            yield group
            group, size = [], 0
    if group:
        yield group


def unchanged(
    files: Sequence[tuple[Path, str, int]],
    known: Mapping[str, str],
    trusted: AbstractSet[str] = frozenset(),
) -> dict[str, int]:
    """``source -> size`` of the ``files`` whose bytes still have the sha256 ``known`` for
    their source: the ``trusted`` ones (stat unchanged since the previous build, see
    ``sources.stat_trusted``) without reading them, the others read and hashed here (a file
    that cannot be read is left to the task)."""
    out: dict[str, int] = {}
    for path, source, size in files:
        if source in trusted and source in known:
            out[source] = size
        elif source in known:
            data = read_bytes(path)
            if isinstance(data, bytes) and hashlib.sha256(data).hexdigest() == known[source]:
                out[source] = len(data)
    return out


def results(tasks: Iterator[Task], workers: int) -> Iterator[Result]:
    """Each task's result, in order; at most ``2 * workers`` tasks in flight.

    Forked workers hand their arrays back in shared slots (``transport``): task ``j`` writes
    into slot ``j % (2 * workers)``, whose previous task's result the caller has taken by
    then (it asked for the next result). A result is valid until the next one is asked for.
    """
    if workers <= 1:
        for task in tasks:
            yield from parts(task)  # a large file's parts, one at a time
        return
    from concurrent.futures import ProcessPoolExecutor  # 4 ms of imports a small update skips

    context = _context()
    in_flight = 2 * workers
    forked = context.get_start_method() == "fork"
    slots = transport.Slots(in_flight) if forked else None
    parent = os.getpid() if forked else None  # a fork server's workers are its children
    pool = ProcessPoolExecutor(
        workers,
        mp_context=context,
        initializer=transport.init_worker,
        initargs=(slots, parent, workers),
    )
    pending: deque[Future[Result | transport.Packed | list[Result]]] = deque()
    finished = False
    try:
        for j, task in enumerate(tasks):
            with _interrupts_deferred():  # a submit may be starting a worker process
                pending.append(pool.submit(transport.run_in_slot, task, j % in_flight))
            if len(pending) >= in_flight:
                yield from transport.unpacked(pending.popleft().result(), slots)
        while pending:
            yield from transport.unpacked(pending.popleft().result(), slots)
        finished = True
    finally:
        if not finished:  # stopped or failed: the tasks in work are not wanted any more
            _terminate_workers(pool)
        pool.shutdown(wait=True, cancel_futures=True)


def _terminate_workers(pool: Any) -> None:
    """End the pool's worker processes at once (SIGTERM ends a worker without its handler,
    ``transport.init_worker``), so a stopped build does not wait for a model to finish the
    groups in work (a MiniLM group of 1 MB takes tens of seconds). ``ProcessPoolExecutor``
    has no public way before Python 3.14 (``terminate_workers``): its process table is read,
    and left alone if a release renames it."""
    stop = getattr(pool, "terminate_workers", None)
    if callable(stop):
        stop()
        return
    processes = getattr(pool, "_processes", None) or {}
    for process in list(processes.values()):
        process.terminate()


def _context() -> BaseContext:
    """How the workers start: forked from this process when it runs no other thread (at
    once, with the modules it has imported: a fresh interpreter importing NumPy and the
    parsers cost ~0.3 s before the first group), else from a fork server (forking a process
    whose other threads may hold a lock, e.g. a progress display's, is unsafe). The threads
    native libraries start without ``threading`` (OpenBLAS's) handle a fork themselves
    (``pthread_atfork``); Python 3.12+ may still note them in a DeprecationWarning."""
    import multiprocessing

    if threading.active_count() == 1 and "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["docqa.pipeline.transport"])
    return context


@contextmanager
def gc_paused() -> Iterator[None]:
    """The cyclic garbage collector off for the block: the main process makes a few small
    objects per file and result, none in a cycle that outlives the build, and the
    collector's passes over everything the interpreter holds cost it ~0.1 s of a build."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


DEFERRED = (signal.SIGINT, signal.SIGTERM)
"""The stops a worker's start holds back (Ctrl-C; SIGTERM, which ``docqa watch`` and the
CLI turn into :class:`docqa.errors.Interrupted`)."""


@contextmanager
def _interrupts_deferred() -> Iterator[None]:
    """Hold Ctrl-C and SIGTERM until the block is done, then deliver them again to the
    handlers they had: a worker half started when the parent stops would print a traceback
    of its own, and a handler that raises while the parent forks raises inside an at-fork
    hook (``logging``'s), where the exception is dropped and the lock the hook was releasing
    stays held: the stop was lost and the process hung. Only the main thread gets signals."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    # a stop ignored stays ignored, and one handled outside Python (None) is left alone: it
    # could not be put back
    held = [s for s in DEFERRED if signal.getsignal(s) not in (None, signal.SIG_IGN)]
    previous = {s: signal.signal(s, lambda signum, frame: caught.append(signum)) for s in held}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    for stop in dict.fromkeys(caught):
        signal.raise_signal(stop)  # its own handler now: raise, end the process, or ignore


@dataclass
class Pass:
    """What the main process keeps while results stream into ``builder``: per-file rows and
    the previous index's row map, both small next to the collection's text."""

    builder: IndexBuilder
    runs: PostingRuns
    lengths: Any  # NpyAppender of bm25_lengths
    previous: Index | None
    old_rows: Mapping[str, tuple[int, int]]
    stats: Mapping[str, Stat] = field(default_factory=dict)  # source -> stat at the scan
    files: dict[str, dict[str, Any]] = field(default_factory=dict)
    skipped: list[SkippedFile] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    remap: np.ndarray | None = None
    embedded: int = 0
    reused: int = 0
    _old_lengths: np.ndarray | None = None
    _old_files: OldFiles | None = None
    _going: str | None = None  # a file whose rows go on in the next result

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        """Close the previous index's files opened for copying."""
        if self._old_files is not None:
            self._old_files.close()
            self._old_files = None

    def take(self, result: Result) -> None:
        """Append one group's rows in file order: new rows from ``result``, reused rows from
        the previous index; consecutive new files are written as one span, consecutive
        reused files copied as one."""
        starts = np.zeros(result.record_lengths.size + 1, dtype=np.int64)
        np.cumsum(result.record_lengths, out=starts[1:])
        new_rows = np.empty(result.record_lengths.size, dtype=np.int32)
        local = 0  # new rows of ``result`` given a row so far
        span = (False, 0, 0)  # rows given a row, not yet written: (new?, first, end)
        for f in result.files:
            if f.skipped:
                self.skipped.append(SkippedFile(f.source, f.skipped))
                warnings.warn(f"skipped {f.source}: {f.skipped}", SkippedFileWarning, stacklevel=2)
                continue
            a, b = self.old_rows[f.source] if f.reused else (local, local + f.chunks)
            if span[0] != (not f.reused) or span[2] != a:
                self._flush(result, starts, span)
                span = (not f.reused, a, a)
            row, n = self.builder.count + span[2] - span[1], b - a
            span = (span[0], span[1], b)
            if not f.reused:
                new_rows[a:b] = np.arange(row, row + n, dtype=np.int32)
                local, self.embedded = b, self.embedded + n
            self._note(f, row, n)
        self._flush(result, starts, span)
        p = result.postings
        self.runs.add(p.hashes, new_rows[p.rows], p.tf)
        self.texts.extend(result.texts)

    def _note(self, f: FileResult, row: int, n: int) -> None:
        """Record file ``f``'s rows ``row..row + n`` (more of them when the previous result
        ended with a part of it: ``FileResult.more``)."""
        if self._going == f.source:
            self.files[f.source]["rows"][1] = row + n
        else:
            self.files[f.source] = {"sha256": f.sha256, "rows": [row, row + n]}
            if f.source in self.stats:
                self.files[f.source]["stat"] = list(self.stats[f.source])
            if f.ids:
                self.files[f.source]["ids"] = f.ids
        self._going = f.source if f.more else None

    def _flush(self, result: Result, starts: np.ndarray, span: tuple[bool, int, int]) -> None:
        """Write the pending ``span``: new rows ``a:b`` of ``result``, or old rows ``a:b``."""
        new, a, b = span
        if a == b:
            return
        if not new:
            self._copy_old((a, b))
            return
        self.builder.add_records(
            memoryview(result.records)[starts[a] : starts[b]], result.record_lengths[a:b]
        )
        if result.vectors is not None:
            self.builder.append_vectors(result.vectors[a:b])
        self.lengths.append(result.postings.lengths[a:b])

    def _copy_old(self, span: tuple[int, int]) -> None:
        """Copy the previous index's rows ``span`` (records, vectors, BM25 lengths) as the
        next rows, and note where they went."""
        assert self.previous is not None
        old = self.previous
        a, b = span
        if self._old_files is None:
            self._old_files = OldFiles(old)
        self._old_files.copy(a, b, self.builder)
        if self._old_lengths is None:
            self._old_lengths = old.array("bm25_lengths")  # one memory map for every file
        self.lengths.append(self._old_lengths[a:b])
        if self.remap is None:
            self.remap = np.full(len(old), -1, dtype=np.int32)  # row ids are int32
        self.remap[a:b] = np.arange(self.builder.count - (b - a), self.builder.count)
        self.reused += b - a

    def old_postings(self) -> OldPostings | None:
        """The previous index's postings renumbered to the new rows (None if nothing reused)."""
        if self.previous is None or self.remap is None:
            return None
        vocab, indptr, rows, tf = (
            self.previous.array(f"bm25_{n}") for n in ("vocab", "indptr", "rows", "tf")
        )
        return OldPostings(vocab, indptr, rows, tf, self.remap)
