"""Search over shards: each shard searched alone, per-shard top k merged in canonical order.

A row's dense score does not depend on the other rows, and a shard's BM25 index scores with
the collection's statistics, so every row has the same score in its shard as in one index;
merging the shards' top k by (score desc, global id asc) then gives exactly the one-index
answer. Masks are global (a bool array of length N or global row ids) and are split per shard.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from docqa._checks import whole
from docqa.keyword import BM25Index
from docqa.search import topk
from docqa.search.masks import mask_rows
from docqa.types import TopK


def padding(n: int, k: int) -> TopK:
    """An empty result: ``-inf`` / ``-1`` everywhere."""
    return TopK(np.full((n, k), -np.inf, np.float32), np.full((n, k), -1, np.int64))


def shifted(result: TopK, offset: int) -> TopK:
    """``result`` with local row ids turned global (padding stays ``-1``)."""
    ids = np.where(result.ids >= 0, result.ids + np.int64(offset), np.int64(-1))
    return TopK(result.scores, ids)


def merge_topk(parts: Sequence[TopK], n: int, k: int) -> TopK:
    """The ``k`` best of several ``(n, *)`` results with global ids, in canonical order."""
    if not parts or k == 0:
        return padding(n, k)
    if n == 1 and k <= SMALL_MERGE:
        return _merge_one(parts, k)
    scores = np.concatenate([p.scores for p in parts], axis=1)
    ids = np.concatenate([p.ids for p in parts], axis=1)
    if scores.shape[1] < k:
        pad = padding(n, k - scores.shape[1])
        scores, ids = np.hstack([scores, pad.scores]), np.hstack([ids, pad.ids])
    # padding is (-inf, -1): -(-inf) sorts after every real score, so it stays at the end
    order = np.lexsort((ids, -scores), axis=1)[:, :k]
    return TopK(np.take_along_axis(scores, order, axis=1), np.take_along_axis(ids, order, axis=1))


SMALL_MERGE = 64  # one question's lists up to this k merge as Python lists (10 against 35 µs
# for two lists of 10: lexsort's set-up is most of a one-question merge)


def _merge_one(parts: Sequence[TopK], k: int) -> TopK:
    """``merge_topk`` of one question: its hits sorted by (score descending, row)."""
    pairs = sorted(
        (-score, row)
        for p in parts
        for score, row in zip(p.scores[0].tolist(), p.ids[0].tolist(), strict=True)
        if row >= 0
    )[:k]
    out = padding(1, k)
    if pairs:
        out.scores[0, : len(pairs)] = [-score for score, _ in pairs]
        out.ids[0, : len(pairs)] = [row for _, row in pairs]
    return out


def merge_topk_reference(parts: Sequence[TopK], n: int, k: int) -> TopK:
    """Slow twin of ``merge_topk``: a heap merge of each query's (already sorted) lists."""
    out = padding(n, k)
    for qi in range(n):
        lists = [
            [(-float(s), int(i)) for s, i in zip(p.scores[qi], p.ids[qi], strict=True) if i >= 0]
            for p in parts
        ]
        for j, (neg, row) in enumerate(heapq.merge(*lists)):
            if j == k:
                break
            out.scores[qi, j], out.ids[qi, j] = -neg, row
    return out


def mapped(result: TopK, ids: np.ndarray) -> TopK:
    """``result`` with local row ids turned global through the row map ``ids`` (padding stays
    ``-1``; a searched row is never a deleted one)."""
    out = np.where(result.ids >= 0, ids[np.maximum(result.ids, 0)], np.int64(-1))
    return TopK(result.scores, out)


@dataclass(frozen=True)
class Shard:
    """One shard's searchable parts: first global row, vectors ``(n, d)``, BM25 index; for a
    delta-updated index, ``ids``: each local row's global row, -1 for a deleted one (then
    ``offset`` is unused). A map increases over its live rows, so the canonical order of a
    shard's live rows by local id is their order by global id."""

    offset: int
    vectors: np.ndarray
    bm25: BM25Index
    ids: np.ndarray | None = None

    @property
    def rows(self) -> int:
        return int(self.vectors.shape[0])

    @cached_property
    def live(self) -> np.ndarray:
        """Local ids of the live rows, ascending (all rows when there is no map)."""
        if self.ids is None:
            return np.arange(self.rows, dtype=np.int64)
        return np.flatnonzero(self.ids >= 0).astype(np.int64)

    def local(self, rows: np.ndarray | None) -> np.ndarray | None:
        """The local rows to search, given the allowed global ``rows`` (sorted; None: all)."""
        if self.ids is None:
            if rows is None:
                return None
            lo, hi = np.searchsorted(rows, [self.offset, self.offset + self.rows])
            out: np.ndarray = rows[lo:hi] - self.offset
            return out
        if rows is None:
            return None  # all rows: ``search`` drops the deleted ones
        glob = self.ids[self.live]  # ascending
        pos = np.searchsorted(glob, rows)
        hit = pos < glob.size
        hit[hit] = glob[pos[hit]] == rows[hit]
        found: np.ndarray = self.live[pos[hit]]
        return found

    def to_global(self, result: TopK) -> TopK:
        return shifted(result, self.offset) if self.ids is None else mapped(result, self.ids)

    def search(self, run: Callable[[int, np.ndarray | None], TopK], k: int,
               local: np.ndarray | None) -> TopK:  # fmt: skip
        """``run(k, mask)`` over this shard, ids made global. A mapped shard searched whole
        is searched without a mask (a mask of every live row costs a gather and, for BM25, a
        bool array per call: 3-40x the search here): deeper, until each query's list holds
        ``k`` live rows or every row with a score, then its deleted rows are dropped. The
        canonical order of the live rows is unchanged by dropping the others."""
        if self.ids is None or local is not None:
            return self.to_global(run(k, local))
        if self.live.size == self.rows:  # nothing deleted here: as searched
            return mapped(run(k, None), self.ids)
        want, deep = min(k, int(self.live.size)), k
        while True:
            res = run(min(deep, self.rows), None)
            found = res.ids >= 0
            drop = ~found | (self.ids[np.maximum(res.ids, 0)] < 0)
            # a list that is not full holds every row with a score (BM25: the rows with a
            # query term): a deeper search would find no more
            short = np.sum(found, axis=1) < res.ids.shape[1]
            if (short | (np.sum(~drop, axis=1) >= want)).all() or deep >= self.rows:
                break
            deep = max(2 * deep, k + int(drop.sum(axis=1).max()))
        if not (drop & found).any():  # no deleted row among them: as searched
            return mapped(TopK(res.scores[:, :k], res.ids[:, :k]), self.ids)
        order = np.argsort(drop, axis=1, kind="stable")[:, :k]  # live first, in their order
        scores = np.take_along_axis(res.scores, order, axis=1)
        ids = np.take_along_axis(res.ids, order, axis=1)
        gone = np.take_along_axis(drop, order, axis=1)
        scores[gone], ids[gone] = -np.inf, -1
        return mapped(TopK(scores, ids), self.ids)


class ShardSet:
    """A ``RowSearcher`` over consecutive shards (``n_threads`` per kernel call)."""

    def __init__(self, shards: Sequence[Shard], n_rows: int, n_threads: int | None = None):
        self.shards = tuple(shards)
        self._n_rows = n_rows
        self.n_threads = n_threads

    @property
    def n_rows(self) -> int:
        return self._n_rows

    def _local_masks(self, mask: np.ndarray | None) -> list[np.ndarray | None]:
        """Each shard's allowed local rows (None: all), from a global mask."""
        rows = mask_rows(mask, self._n_rows)
        return [s.local(rows) for s in self.shards]

    def _skip(self, shard: Shard, local: np.ndarray | None) -> bool:
        return shard.rows == 0 or (local is not None and local.size == 0)

    def dense(self, queries: np.ndarray, k: int, mask: np.ndarray | None) -> TopK:
        def run(s: Shard) -> Callable[[int, np.ndarray | None], TopK]:
            return lambda kk, mm: topk(s.vectors, queries, kk, mask=mm, n_threads=self.n_threads)

        parts = [
            s.search(run(s), k, m)
            for s, m in zip(self.shards, self._local_masks(mask), strict=True)
            if not self._skip(s, m)
        ]
        n = 1 if np.ndim(queries) == 1 else int(np.shape(queries)[0])
        return merge_topk(parts, n, min(whole(k, "k"), self.n_rows))  # as one index: min(k, N)

    def keyword(self, questions: Sequence[str], k: int, mask: np.ndarray | None) -> TopK:
        # one tokenization for every part when they tokenize alike (one index's parts do):
        # 15 us a part of a one-question search
        settings = {s.bm25.config.tokens for s in self.shards}
        hashed = self.shards[0].bm25.query_hashes(questions) if len(settings) == 1 else None

        def run(s: Shard) -> Callable[[int, np.ndarray | None], TopK]:
            return lambda kk, mm: s.bm25.search(
                questions, kk, mask=mm, n_threads=self.n_threads, hashed=hashed
            )

        parts = [
            s.search(run(s), k, m)
            for s, m in zip(self.shards, self._local_masks(mask), strict=True)
            if not self._skip(s, m)
        ]
        return merge_topk(parts, len(questions), min(whole(k, "k"), self.n_rows))
