"""Numba kernels of BM25: arrays in, arrays out; no globals, no I/O, no thread settings.

Building (serial, streamed one batch of texts at a time):

- ``count_batch`` turns one batch of term ids (the native ``TermCounter`` interns tokens while
  scanning, one table for the whole build) into per-document postings (term id, tf);
- ``build_csr`` lays the postings out as CSR, term-major, rows ascending within a term.

Searching (``search_batch``): ``prange`` over blocks of queries; each block owns its scratch
arrays and its output rows. Per query the postings of its distinct known terms, rarest first,
are accumulated into a dense float64 array (only touched rows are visited again), with exact
max-score pruning (see ``_one_query``), and the top k are selected with a bounded heap under
the canonical order: float32 score descending, then row id ascending.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, prange

from docqa import _canonical
from docqa._canonical import comes_before
from docqa.search import numba_cache

# The selection inlines the canonical comparator: an edit there must recompile these kernels.
numba_cache.track(__file__, _canonical.__file__)

CHUNK = 16
"""Rows per step of the dense selection pass (``_dense_query``)."""


class Postings(NamedTuple):
    """The searchable CSR: term ``t`` owns ``indptr[t]:indptr[t + 1]`` of ``rows``/``weights``."""

    indptr: np.ndarray  # int64 (V + 1,)
    rows: np.ndarray  # int32 (nnz,), ascending within a term
    weights: np.ndarray  # float64 (nnz,), each posting's BM25 term score (> 0)
    max_w: np.ndarray  # float64 (V,), each term's largest weight


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
def _sift_down(hs: np.ndarray, hi: np.ndarray, size: int, pos: int) -> None:
    """Restore the heap (worst entry at the root) below ``pos``."""
    while True:
        child = 2 * pos + 1
        if child >= size:
            return
        if child + 1 < size and comes_before(hs[child], hi[child], hs[child + 1], hi[child + 1]):
            child += 1
        if not comes_before(hs[pos], hi[pos], hs[child], hi[child]):
            return
        hs[pos], hs[child] = hs[child], hs[pos]
        hi[pos], hi[child] = hi[child], hi[pos]
        pos = child


@njit(cache=True)
def _push(hs: np.ndarray, hi: np.ndarray, size: int, k: int, s: np.float32, i: np.int64) -> int:
    """Offer (s, i) to a heap of at most ``k`` best entries; returns the new size."""
    if size < k:
        pos = size
        hs[pos] = s
        hi[pos] = i
        while pos > 0:
            parent = (pos - 1) // 2
            if not comes_before(hs[parent], hi[parent], hs[pos], hi[pos]):
                break
            hs[pos], hs[parent] = hs[parent], hs[pos]
            hi[pos], hi[parent] = hi[parent], hi[pos]
            pos = parent
        return size + 1
    if comes_before(s, i, hs[0], hi[0]):
        hs[0] = s
        hi[0] = i
        _sift_down(hs, hi, size, 0)
    return size


@njit(cache=True)
def _drain(hs: np.ndarray, hi: np.ndarray, size: int, out_s: np.ndarray, out_i: np.ndarray) -> None:
    """Write the heap's entries best first into ``out_s``/``out_i`` (the heap is consumed)."""
    for last in range(size - 1, -1, -1):
        out_s[last] = hs[0]
        out_i[last] = hi[0]
        hs[0] = hs[last]
        hi[0] = hi[last]
        _sift_down(hs, hi, last, 0)


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
            size = _push(hs, hi, size, k, s, r)
    return size


@njit(cache=True)
def _bound32(partial: float, rest: float) -> np.float32:
    """Float32 upper bound of a final score, with margin for float64 rounding."""
    return np.float32((partial + rest) * (1.0 + 1e-9))


@njit(cache=True)
def _dense_query(
    index: Postings, terms: np.ndarray, nt: int, mask: np.ndarray, use_mask: bool,
    acc: np.ndarray, hs: np.ndarray, hi: np.ndarray, k: int, out_s: np.ndarray,
    out_i: np.ndarray,
) -> None:  # fmt: skip
    """``_one_query`` for queries whose postings cover a good part of the rows: every term
    added to the dense ``acc`` (same terms, same order, so the same sums), then one pass over
    all rows selects the hits (``acc > 0``: every weight is positive) and zeroes ``acc``."""
    indptr, rows, weights = index.indptr, index.rows, index.weights
    for i in range(nt):
        t = terms[i]
        if use_mask:
            for p in range(indptr[t], indptr[t + 1]):
                if mask[rows[p]]:
                    acc[rows[p]] += weights[p]
        else:
            for p in range(indptr[t], indptr[t + 1]):
                acc[rows[p]] += weights[p]
    # One pass selects and zeroes, 16 rows at a time: a chunk whose largest value is below
    # ``lo`` (the common case once the heap is full) is only zeroed, in code the compiler
    # vectorises. ``lo`` is a float64 bound that changes only when the heap does: it admits
    # every hit (a > 0) until the heap is full, then every a that could round to the heap's
    # worst score or above (rounding to float32 moves a normal number by < 2**-24 of itself).
    # ``acc`` has CHUNK zeros of padding past the last row.
    n = acc.size - CHUNK
    size = 0
    lo = 5e-324
    for r0 in range(0, n, CHUNK):
        top = 0.0
        for j in range(CHUNK):
            x = acc[r0 + j]
            top = x if x > top else top  # noqa: FURB136 (a plain select vectorises)
        if top < lo:
            for j in range(CHUNK):
                acc[r0 + j] = 0.0
            continue
        for r in range(r0, min(n, r0 + CHUNK)):
            a = acc[r]
            acc[r] = 0.0
            if a >= lo:
                s = np.float32(a)
                if size < k or comes_before(s, np.int64(r), hs[0], hi[0]):
                    size = _push(hs, hi, size, k, s, np.int64(r))
                    if size == k and hs[0] > np.float32(1e-30):
                        lo = np.float64(hs[0]) * (1.0 - 2.0**-20)
    _drain(hs, hi, size, out_s, out_i)


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
    indptr, rows, weights, max_w = index
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
    _drain(hs, hi, size, out_s, out_i)
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
    at least ``n_docs / dense_share`` is scored densely (``_dense_query``), any other by
    ``_one_query``; both give the same result."""
    terms = scratch.terms
    nt = _sorted_terms(q_terms, lo, hi, index.indptr, terms)
    postings = 0
    for j in range(nt):
        postings += index.indptr[terms[j] + 1] - index.indptr[terms[j]]
    if postings * dense_share >= n_docs:
        _dense_query(index, terms, nt, mask, use_mask, scratch.acc, scratch.heap_s,
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
