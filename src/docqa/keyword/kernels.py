"""Numba kernels of BM25: arrays in, arrays out; no globals, no I/O, no thread settings.

Building (serial, streamed one batch of texts at a time):

- ``count_batch`` turns one batch of term ids (the native ``TermCounter`` interns tokens while
  scanning, one table for the whole build) into per-document postings (term id, tf);
- ``build_csr`` lays the postings out as CSR, term-major, rows ascending within a term.

Searching (``search_batch``): ``prange`` over blocks of queries; each block owns its scratch
arrays and its output rows. Per query the postings of its distinct known terms, rarest first,
are accumulated into a dense float64 array, either tracking the rows they touch with exact
max-score pruning (``_one_query``) or over all rows when the postings are many
(``docqa.keyword.dense``), and the top k are selected with a bounded heap
(``docqa.keyword.heap``) under the canonical order: float32 score descending, then row id
ascending.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, prange

from docqa import _canonical
from docqa._canonical import comes_before
from docqa.keyword import dense, heap
from docqa.keyword.dense import CHUNK, dense_query
from docqa.keyword.heap import drain, push
from docqa.search import numba_cache

# The selection inlines the canonical comparator and the kernels of the dense path and the
# heap: an edit to any of them must recompile these kernels.
numba_cache.track(__file__, _canonical.__file__, dense.__file__, heap.__file__)


class Postings(NamedTuple):
    """The searchable CSR: term ``t`` owns ``indptr[t]:indptr[t + 1]`` of ``rows``/``weights``."""

    indptr: np.ndarray  # int64 (V + 1,)
    rows: np.ndarray  # int32 (nnz,), ascending within a term
    weights: np.ndarray  # float64 (nnz,), each posting's BM25 term score (> 0)
    max_w: np.ndarray  # float64 (V,), each term's largest weight
    column_of: np.ndarray  # int64 (V,): the term's row of ``columns``, or -1
    columns: np.ndarray  # float64 (C, N): a long term's weight in every row (0.0: absent)


class Scratch(NamedTuple):
    """One searcher's work arrays (``new_scratch``); every query leaves them as it found them
    (``acc`` zero, ``alive`` False), so they can serve the next query."""

    acc: np.ndarray  # float64 (N + CHUNK,) zeros: partial scores (+ padding for the dense pass)
    touched: np.ndarray  # int32 (N + 1,): rows with a partial score (+ 1: branch-free append)
    alive: np.ndarray  # bool (N,) False: rows that may still reach the top k
    survivors: np.ndarray  # int32 (N,): the alive rows
    rest: np.ndarray  # float64 (longest + 1,): what the remaining terms can add at most
    terms: np.ndarray  # int64 (longest,): the query's distinct terms, df ascending
    heap_s: np.ndarray  # float32 (k,)
    heap_i: np.ndarray  # int64 (k,)


@njit(cache=True, nogil=True)
def count_batch(
    ids: np.ndarray, offsets: np.ndarray, scratch: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Postings of one batch of documents.

    ``ids`` int64 term ids and ``offsets`` int64 (n + 1) are ``docqa.text.TermCounter.add``
    output; ``scratch`` is an int32 array of zeros longer than the largest id (left zeroed).
    Returns ``(terms int32, tf int32, n_unique int64 (n,), lengths int32 (n,))``: document
    ``i``'s postings are the next ``n_unique[i]`` entries of ``terms``/``tf`` (in first-seen
    order); ``lengths`` counts tokens.
    """
    n = offsets.size - 1
    terms = np.empty(ids.size, dtype=np.int32)
    tf = np.empty(ids.size, dtype=np.int32)
    n_unique = np.zeros(n, dtype=np.int64)
    lengths = np.empty(n, dtype=np.int32)
    out = 0
    for d in range(n):
        start = out
        lengths[d] = offsets[d + 1] - offsets[d]
        for p in range(offsets[d], offsets[d + 1]):
            t = ids[p]
            if scratch[t] == 0:
                terms[out] = t
                out += 1
            scratch[t] += 1
        for q in range(start, out):
            tf[q] = scratch[terms[q]]
            scratch[terms[q]] = 0
        n_unique[d] = out - start
    return terms[:out].copy(), tf[:out].copy(), n_unique, lengths


@njit(cache=True)
def build_csr(
    terms: np.ndarray, tf: np.ndarray, n_unique: np.ndarray, n_terms: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Row-major postings to term-major CSR by a counting sort (stable, so rows stay ascending).

    ``terms`` int32 term ids, ``tf`` int32, ``n_unique`` int64 postings per row. Returns
    ``(indptr int64 (n_terms + 1,), rows int32, tf int32)``; term ``t`` owns
    ``indptr[t]:indptr[t + 1]``.
    """
    indptr = np.zeros(n_terms + 1, dtype=np.int64)
    for p in range(terms.size):
        indptr[terms[p] + 1] += 1
    for t in range(n_terms):
        indptr[t + 1] += indptr[t]
    fill = indptr[:-1].copy()
    rows_out = np.empty(terms.size, dtype=np.int32)
    tf_out = np.empty(terms.size, dtype=np.int32)
    p = 0
    for row in range(n_unique.size):
        for _ in range(n_unique[row]):
            dest = fill[terms[p]]
            rows_out[dest] = row
            tf_out[dest] = tf[p]
            fill[terms[p]] += 1
            p += 1
    return indptr, rows_out, tf_out


@njit(cache=True)
def _sorted_terms(
    q_terms: np.ndarray, start: int, stop: int, indptr: np.ndarray, out: np.ndarray
) -> int:
    """Distinct known terms of ``q_terms[start:stop]`` into ``out``, df ascending (ties: first
    appearance first, by a stable insertion sort); returns how many."""
    n = 0
    for j in range(start, stop):
        t = q_terms[j]
        repeat = t < 0
        for x in range(n):
            repeat = repeat or out[x] == t
        if repeat:
            continue
        df = indptr[t + 1] - indptr[t]
        x = n
        while x > 0 and indptr[out[x - 1] + 1] - indptr[out[x - 1]] > df:
            out[x] = out[x - 1]
            x -= 1
        out[x] = t
        n += 1
    return n


@njit(cache=True)
def _add_term(
    indptr: np.ndarray, rows: np.ndarray, weights: np.ndarray, t: int, mask: np.ndarray,
    use_mask: bool, acc: np.ndarray, touched: np.ndarray, m: int,
) -> int:  # fmt: skip
    """Add term ``t``'s postings to ``acc``, appending new rows to ``touched``; returns m."""
    for p in range(indptr[t], indptr[t + 1]):
        r = rows[p]
        if use_mask and not mask[r]:
            continue
        # Branch-free "append r if untouched": every weight is > 0, so 0 means untouched.
        touched[m] = r
        m += acc[r] == 0.0
        acc[r] += weights[p]
    return m


@njit(cache=True)
def _add_term_to(
    indptr: np.ndarray, rows: np.ndarray, weights: np.ndarray, t: int, acc: np.ndarray,
    alive: np.ndarray, survivors: np.ndarray, n_alive: int,
) -> None:  # fmt: skip
    """Add term ``t``'s weights to the ``alive`` rows only: binary search when they are few."""
    lo, hi = indptr[t], indptr[t + 1]
    if n_alive * 16 < hi - lo:
        for x in range(n_alive):
            r = survivors[x]
            p = lo + np.searchsorted(rows[lo:hi], r)
            if p < hi and rows[p] == r:
                acc[r] += weights[p]
    else:
        for p in range(lo, hi):
            if alive[rows[p]]:
                acc[rows[p]] += weights[p]


@njit(cache=True)
def _select(
    acc: np.ndarray, rows: np.ndarray, m: int, k: int, hs: np.ndarray, hi: np.ndarray
) -> int:
    """Heap of the best ``k`` of ``rows[:m]`` by float32 ``acc``; returns its size."""
    size = 0
    for x in range(m):
        r = np.int64(rows[x])
        s = np.float32(acc[r])
        if size < k or comes_before(s, r, hs[0], hi[0]):  # most rows lose to the heap's worst
            size = push(hs, hi, size, k, s, r)
    return size


@njit(cache=True)
def _bound32(partial: float, rest: float) -> np.float32:
    """Float32 upper bound of a final score, with margin for float64 rounding."""
    return np.float32((partial + rest) * (1.0 + 1e-9))


@njit(cache=True)
def _one_query(
    index: Postings, terms: np.ndarray, nt: int, mask: np.ndarray, use_mask: bool,
    scratch: Scratch, k: int, out_s: np.ndarray, out_i: np.ndarray,
) -> None:  # fmt: skip
    """Score one query over its ``nt`` sorted ``terms`` and write its top k (``k >= 1``).

    Terms are added rarest first. Once k rows have partial scores whose k-th best beats
    what the remaining terms could give an unseen row, no new row can enter the top k: only
    rows that could still reach it ("alive") receive the remaining terms. Every row's score
    is still the same sum, in the same order, as without pruning.
    """
    indptr, rows, weights, max_w = index.indptr, index.rows, index.weights, index.max_w
    acc, touched, alive, survivors, rest = (
        scratch.acc,
        scratch.touched,
        scratch.alive,
        scratch.survivors,
        scratch.rest,
    )
    hs, hi = scratch.heap_s, scratch.heap_i
    rest[nt] = 0.0
    for i in range(nt - 1, -1, -1):
        rest[i] = rest[i + 1] + max_w[terms[i]]
    m, i, theta = 0, 0, np.float32(0.0)
    while i < nt:
        # theta <= best partial <= rest[0] - rest[i]: skip the O(m) selection when that
        # cannot beat what is left.
        if i > 0 and m >= k and rest[0] - rest[i] > rest[i]:
            _select(acc, touched, m, k, hs, hi)
            theta = hs[0]
            if _bound32(0.0, rest[i]) < theta:
                break
        m = _add_term(indptr, rows, weights, terms[i], mask, use_mask, acc, touched, m)
        i += 1
    n_alive = m
    if i < nt:
        n_alive = 0
        for x in range(m):
            r = touched[x]
            if _bound32(acc[r], rest[i]) >= theta:
                survivors[n_alive] = r
                alive[r] = True
                n_alive += 1
        for j in range(i, nt):
            _add_term_to(indptr, rows, weights, terms[j], acc, alive, survivors, n_alive)
    size = _select(acc, survivors if i < nt else touched, n_alive, k, hs, hi)
    drain(hs, hi, size, out_s, out_i)
    for x in range(m):
        acc[touched[x]] = 0.0
        alive[touched[x]] = False


@njit(cache=True)
def new_scratch(n_docs: int, longest: int, k: int) -> Scratch:
    """Fresh work arrays for queries of up to ``longest`` terms and ``k`` hits."""
    return Scratch(
        np.zeros(n_docs + CHUNK, dtype=np.float64),
        np.empty(n_docs + 1, dtype=np.int32),
        np.zeros(n_docs, dtype=np.bool_),
        np.empty(n_docs, dtype=np.int32),
        np.empty(longest + 1, dtype=np.float64),
        np.empty(longest, dtype=np.int64),
        np.empty(k, dtype=np.float32),
        np.empty(k, dtype=np.int64),
    )


@njit(cache=True, nogil=True)
def search_one(
    index: Postings, n_docs: int, q_terms: np.ndarray, lo: int, hi: int, k: int,
    mask: np.ndarray, use_mask: bool, dense_share: int, scratch: Scratch,
    out_s: np.ndarray, out_i: np.ndarray,
) -> None:  # fmt: skip
    """Top k of the query ``q_terms[lo:hi]`` into ``out_s`` / ``out_i`` (k,) (arriving padded
    with ``-inf`` / ``-1``), on the calling thread with reusable ``scratch`` (its ``terms`` and
    ``rest`` hold at least ``hi - lo`` terms, its heap ``k``). A query whose postings number
    at least ``n_docs / dense_share`` is scored densely (``dense.dense_query``), any other by
    ``_one_query``; both give the same result."""
    terms = scratch.terms
    nt = _sorted_terms(q_terms, lo, hi, index.indptr, terms)
    postings = 0
    for j in range(nt):
        postings += index.indptr[terms[j] + 1] - index.indptr[terms[j]]
    if postings * dense_share >= n_docs:
        dense_query(index, terms, nt, mask, use_mask, scratch.acc, scratch.heap_s,
                    scratch.heap_i, k, out_s, out_i)  # fmt: skip
    else:
        _one_query(index, terms, nt, mask, use_mask, scratch, k, out_s, out_i)


@njit(parallel=True, cache=True)
def search_batch(
    index: Postings, n_docs: int, q_terms: np.ndarray, q_offsets: np.ndarray, k: int,
    mask: np.ndarray, use_mask: bool, n_blocks: int, dense_share: int,
) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """Top k of every query (``k >= 1``): :func:`search_one` for each, ``prange`` over blocks
    of queries, each block with its own scratch.

    ``q_terms`` int64 term ids (``-1`` unknown), query ``i`` owns
    ``q_terms[q_offsets[i]:q_offsets[i + 1]]``; ``mask`` bool (n_docs,) read only when
    ``use_mask``. Returns ``scores (n, k) float32`` and ``ids (n, k) int64`` in canonical
    order, padded with ``-inf`` / ``-1``; rows without any query term are never returned.
    """
    n = q_offsets.size - 1
    longest = np.max(q_offsets[1:] - q_offsets[:-1])
    scores = np.full((n, k), -np.inf, dtype=np.float32)
    ids = np.full((n, k), -1, dtype=np.int64)
    for block in prange(n_blocks):
        scratch = new_scratch(n_docs, longest, k)
        for qi in range(block * n // n_blocks, (block + 1) * n // n_blocks):
            search_one(index, n_docs, q_terms, q_offsets[qi], q_offsets[qi + 1], k, mask,
                       use_mask, dense_share, scratch, scores[qi], ids[qi])  # fmt: skip
    return scores, ids
