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

import numpy as np
from numba import njit, prange

CHUNK = 16
"""Rows per step of the dense selection pass (``_dense_query``)."""


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
def _worse(s_a: np.float32, i_a: np.int64, s_b: np.float32, i_b: np.int64) -> bool:
    """True when (s_a, i_a) comes after (s_b, i_b) in the canonical order."""
    return bool(s_a < s_b or (s_a == s_b and i_a > i_b))


@njit(cache=True)
def _sift_down(hs: np.ndarray, hi: np.ndarray, size: int, pos: int) -> None:
    """Restore the heap (worst entry at the root) below ``pos``."""
    while True:
        child = 2 * pos + 1
        if child >= size:
            return
        if child + 1 < size and _worse(hs[child + 1], hi[child + 1], hs[child], hi[child]):
            child += 1
        if not _worse(hs[child], hi[child], hs[pos], hi[pos]):
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
            if not _worse(hs[pos], hi[pos], hs[parent], hi[parent]):
                break
            hs[pos], hs[parent] = hs[parent], hs[pos]
            hi[pos], hi[parent] = hi[parent], hi[pos]
            pos = parent
        return size + 1
    if _worse(hs[0], hi[0], s, i):
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
        if size < k or _worse(hs[0], hi[0], s, r):  # most rows lose to the heap's worst
            size = _push(hs, hi, size, k, s, r)
    return size


@njit(cache=True)
def _bound32(partial: float, rest: float) -> np.float32:
    """Float32 upper bound of a final score, with margin for float64 rounding."""
    return np.float32((partial + rest) * (1.0 + 1e-9))


@njit(cache=True)
def _dense_query(
    index: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray], terms: np.ndarray, nt: int,
    mask: np.ndarray, use_mask: bool, acc: np.ndarray, hs: np.ndarray, hi: np.ndarray,
    k: int, out_s: np.ndarray, out_i: np.ndarray,
) -> None:  # fmt: skip
    """``_one_query`` for queries whose postings cover a good part of the rows: every term
    added to the dense ``acc`` (same terms, same order, so the same sums), then one pass over
    all rows selects the hits (``acc > 0``: every weight is positive) and zeroes ``acc``."""
    indptr, rows, weights, _ = index
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
                if size < k or _worse(hs[0], hi[0], s, np.int64(r)):
                    size = _push(hs, hi, size, k, s, np.int64(r))
                    if size == k and hs[0] > np.float32(1e-30):
                        lo = np.float64(hs[0]) * (1.0 - 2.0**-20)
    _drain(hs, hi, size, out_s, out_i)


@njit(cache=True)
def _one_query(
    index: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray], terms: np.ndarray, nt: int,
    mask: np.ndarray, use_mask: bool, scratch: tuple[np.ndarray, ...], k: int,
    out_s: np.ndarray, out_i: np.ndarray,
) -> None:  # fmt: skip
    """Score one query over its ``nt`` sorted ``terms`` and write its top k (``k >= 1``).

    Terms are added rarest first. Once k rows have partial scores whose k-th best beats
    what the remaining terms could give an unseen row, no new row can enter the top k: only
    rows that could still reach it ("alive") receive the remaining terms. Every row's score
    is still the same sum, in the same order, as without pruning.
    """
    indptr, rows, weights, max_w = index
    acc, touched, alive, survivors, rest, hs, hi = scratch
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


@njit(parallel=True, cache=True)
def search_batch(
    index: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray], n_docs: int,
    q_terms: np.ndarray, q_offsets: np.ndarray, k: int, mask: np.ndarray, use_mask: bool,
    n_blocks: int, dense_share: int,
) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """Top k of every query (``k >= 1``).

    ``index`` is the CSR ``(indptr int64, rows int32, weights float64, max_w float64)``:
    each posting's BM25 term score and each term's largest; ``q_terms`` int64 term ids
    (``-1`` unknown), query ``i`` owns ``q_terms[q_offsets[i]:q_offsets[i + 1]]``; ``mask``
    bool (n_docs,) read only when ``use_mask``. A query whose postings number at least
    ``n_docs / dense_share`` is scored densely (``_dense_query``), any other by
    ``_one_query``; both give the same result. Returns ``scores (n, k) float32`` and
    ``ids (n, k) int64`` in canonical order, padded with ``-inf`` / ``-1``; rows without any
    query term are never returned.
    """
    n = q_offsets.size - 1
    longest = np.max(q_offsets[1:] - q_offsets[:-1])
    scores = np.full((n, k), -np.inf, dtype=np.float32)
    ids = np.full((n, k), -1, dtype=np.int64)
    for block in prange(n_blocks):
        terms = np.empty(longest, dtype=np.int64)
        scratch = (
            np.zeros(n_docs + CHUNK, dtype=np.float64),  # acc (+ padding for _dense_query)
            np.empty(n_docs + 1, dtype=np.int32),  # touched (+ 1: the branch-free append)
            np.zeros(n_docs, dtype=np.bool_),  # alive
            np.empty(n_docs, dtype=np.int32),  # survivors
            np.empty(longest + 1, dtype=np.float64),  # rest
            np.empty(k, dtype=np.float32),  # heap scores
            np.empty(k, dtype=np.int64),  # heap ids
        )
        for qi in range(block * n // n_blocks, (block + 1) * n // n_blocks):
            nt = _sorted_terms(q_terms, q_offsets[qi], q_offsets[qi + 1], index[0], terms)
            postings = 0
            for j in range(nt):
                postings += index[0][terms[j] + 1] - index[0][terms[j]]
            if postings * dense_share >= n_docs:
                _dense_query(
                    index,
                    terms,
                    nt,
                    mask,
                    use_mask,
                    scratch[0],
                    scratch[5],
                    scratch[6],
                    k,
                    scores[qi],
                    ids[qi],
                )
            else:
                _one_query(index, terms, nt, mask, use_mask, scratch, k, scores[qi], ids[qi])
    return scores, ids
