"""BM25 postings in bounded memory: sorted runs spilled to disk, merged by hash range.

Postings arrive in row order (``add``; each call's sorted by (hash, row)), are held until
``budget`` of them have gathered, then sorted by term hash (stably, so rows stay ascending
within a term; a merge of the calls' sorted runs, as the sort finds them) and written to the scratch
folder as one run, the way Lucene flushes segments. ``merge`` then walks the 64-bit hash
space in equal slices, small enough that one slice of every run fits the budget, and writes
the CSR arrays of :mod:`docqa.keyword.bm25` (``ARRAYS``) straight to their files: the result
is the same bytes ``BM25Index.from_texts`` gives for the same texts, with memory bounded by
the budget instead of the collection.

An update brings the previous index's CSR as one more run (:class:`docqa.pipeline.reuse.OldPostings`) whose rows are
renumbered to their new places; kept files keep their order, so renumbering keeps rows
ascending within a term, and the new postings are merged in without sorting the old ones
(:mod:`docqa.pipeline.reuse`).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import numpy as np

if TYPE_CHECKING:
    from docqa.pipeline.reuse import OldPostings

DEFAULT_BUDGET = 1_000_000  # postings held in memory (16 bytes each; ~3x that while sorting)
_SPACE = 1 << 64
Postings3 = tuple[np.ndarray, np.ndarray, np.ndarray]  # hashes uint64, rows int32, tf int32
Csr = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]  # vocab, counts, rows, tf
_NONE: Postings3 = (np.zeros(0, np.uint64), np.zeros(0, np.int32), np.zeros(0, np.int32))
T = TypeVar("T")
R = TypeVar("R")


def terms_of(hashes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values of the sorted ``hashes`` and how many times each occurs."""
    new = np.ones(hashes.size, dtype=bool)
    new[1:] = hashes[1:] != hashes[:-1]
    starts = np.flatnonzero(new)
    return hashes[starts], np.diff(np.append(starts, hashes.size))


def hash_bounds(hashes: np.ndarray, lo: int, hi: int) -> tuple[int, int]:
    """Positions of ``[lo, hi)`` in the sorted uint64 ``hashes``."""
    a = int(np.searchsorted(hashes, np.uint64(lo), side="left"))
    b = hashes.size if hi >= _SPACE else int(np.searchsorted(hashes, np.uint64(hi), "left"))
    return a, b


Sink = Callable[[str, np.ndarray], None]  # (array name, block) appended to that array


class _Run:
    """One spilled run: raw uint64 hashes, int32 rows, int32 tf files. Slices are read into
    memory by offset, not memory-mapped, so what the merge has read does not stay resident
    (mapped pages count in the process's memory until unmapped); only the binary search for
    a slice's bounds touches the hashes file through a map."""

    def __init__(self, hashes: Path, rows: Path, tf: Path) -> None:
        self.paths = (hashes, rows, tf)
        self.hashes = (
            np.memmap(hashes, dtype=np.uint64, mode="r")
            if hashes.stat().st_size
            else np.zeros(0, np.uint64)
        )

    def slice(self, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        a, b = hash_bounds(self.hashes, lo, hi)
        h, r, t = self.paths
        return (
            np.fromfile(h, dtype=np.uint64, count=b - a, offset=a * 8),
            np.fromfile(r, dtype=np.int32, count=b - a, offset=a * 4),
            np.fromfile(t, dtype=np.int32, count=b - a, offset=a * 4),
        )


class PostingRuns:
    """Postings gathered in row order and spilled as sorted runs under ``scratch``."""

    def __init__(self, scratch: Path, budget: int | None = None) -> None:
        self.scratch = scratch
        self.budget = DEFAULT_BUDGET if budget is None else budget  # read at call time
        self.total = 0
        self._runs: list[tuple[Path, Path, Path]] = []
        self._held: Postings3 = _NONE  # buffers, reused from run to run (no fresh pages)
        self._held_size = 0

    def add(self, hashes: np.ndarray, rows: np.ndarray, tf: np.ndarray) -> None:
        """Postings of rows after every row added before (any order within the call);
        copied (the caller may reuse its arrays)."""
        n = hashes.size
        if self._held_size + n > self._held[0].size:
            self._spill()
            if n > self._held[0].size:
                size = max(n, min(self.budget, 1 << 24))
                self._held = (np.empty(size, np.uint64), np.empty(size, np.int32),
                              np.empty(size, np.int32))  # fmt: skip
        a, b = self._held_size, self._held_size + n
        for buffer, arr in zip(self._held, (hashes, rows, tf), strict=True):
            buffer[a:b] = arr
        self._held_size = b
        self.total += n
        if self._held_size >= self.budget:
            self._spill()

    def _spill(self) -> None:
        if not self._held_size:
            return
        hashes, rows, tf = (buffer[: self._held_size] for buffer in self._held)
        self._held_size = 0
        order = np.argsort(hashes, kind="stable")  # rows arrived ascending: they stay so
        paths = tuple(self.scratch / f"run-{len(self._runs):05d}.{k}" for k in "hrt")
        for path, arr in zip(paths, (hashes, rows, tf), strict=True):
            arr[order].tofile(path)  # raw: the merge reads slices of it by offset
        self._runs.append((paths[0], paths[1], paths[2]))

    def merge(self, sink: Sink, old: OldPostings | None = None) -> int:
        """Write ``bm25_vocab``, ``bm25_indptr``, ``bm25_rows`` and ``bm25_tf`` to ``sink``;
        returns the number of terms.

        Slices are merged by two threads (NumPy's reads, sorts and gathers release the GIL)
        and written in order, at most two ahead of the writer: the same bytes as one by one,
        with up to three slices in memory instead of one."""
        self._spill()
        runs = [_Run(*paths) for paths in self._runs]
        total = self.total + (int(old.indptr[-1]) if old is not None else 0)
        slices = max(1, -(-total // self.budget))
        bounds = [(i * _SPACE // slices, (i + 1) * _SPACE // slices) for i in range(slices)]
        n_terms, nnz = 0, 0
        sink("bm25_indptr", np.zeros(1, np.int64))
        for vocab, counts, rows, tf in _in_order(lambda b: _merge_slice(runs, old, *b), bounds):
            if not rows.size:
                continue
            sink("bm25_vocab", vocab)
            sink("bm25_indptr", nnz + np.cumsum(counts, dtype=np.int64))
            sink("bm25_rows", rows)
            sink("bm25_tf", tf)
            n_terms += vocab.size
            nnz += rows.size
        return n_terms


def _merge_slice(runs: list[_Run], old: OldPostings | None, lo: int, hi: int) -> Csr:
    """The CSR parts of the terms with hashes in ``[lo, hi)``: every run's postings there
    (and ``old``'s, renumbered), sorted by (hash, row)."""
    parts = [run.slice(lo, hi) for run in runs] or [_NONE]
    hashes, rows, tf = (np.concatenate(p) for p in zip(*parts, strict=True))
    # runs hold ascending, disjoint row ranges: a stable sort by hash keeps rows in
    # order; renumbered old rows interleave with them, merged in by row
    order = np.argsort(hashes, kind="stable")
    hashes, rows, tf = hashes[order], rows[order], tf[order]
    if old is not None:
        return old.slice(lo, hi, (hashes, rows, tf))
    vocab, counts = terms_of(hashes)
    return vocab, counts, rows, tf


def _in_order(work: Callable[[T], R], items: Sequence[T], threads: int = 2) -> Iterator[R]:
    """``map(work, items)`` computed by ``threads`` threads, at most ``threads`` ahead."""
    if len(items) < 2:
        yield from map(work, items)
        return
    from concurrent.futures import Future, ThreadPoolExecutor

    with ThreadPoolExecutor(threads) as pool:
        pending: deque[Future[R]] = deque()
        try:
            for item in items:
                pending.append(pool.submit(work, item))
                if len(pending) >= threads:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()
        finally:
            for future in pending:
                future.cancel()
