"""Numba kernels of the exact top-k search (``@njit`` only; validation lives in ``api.py``).

The canonical score
-------------------
``canonical_dot(row, q64, d)`` is *the* score of a row: exact float64 products accumulated in
16 independent float64 lanes (lane ``l`` adds elements ``l, l+16, l+32, ...`` in order, the
last chunk zero-padded), the lanes summed by a fixed pairwise tree (``w = 8, 4, 2, 1``), the
result rounded once to float32 (the exact order is in :mod:`docqa.search.lanes`, which emits
it as SIMD code). Nothing is reassociated (no ``fastmath``), so a row has the same score in
every kernel, batch, block and thread. :func:`docqa.search.reference.canonical_scores` is
the NumPy twin of exactly this order.

The selection
-------------
``sel_s`` / ``sel_i`` (length k) hold the best entries so far in canonical order (score
descending, then id ascending), padded with ``-inf`` / ``-1``. A row is admitted only when it
beats the last entry; padding (id -1) loses to every row, even one scoring ``-inf``.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from docqa.search.lanes import lane_dot


@njit(inline="always")
def canonical_dot(row: np.ndarray, q64: np.ndarray, d: int) -> np.float32:
    """Canonical score (float32) of a C-contiguous float32 row against a float64 copy of a
    float32 query (both of length d): :func:`docqa.search.lanes.lane_dot`, rounded once."""
    return np.float32(lane_dot(row, q64, d))


@njit(inline="always")
def _beats(s: np.float32, r: np.int64, s2: np.float32, r2: np.int64) -> bool:
    """True when (s, r) comes before (s2, r2) in canonical order; id -1 is padding."""
    return bool(r2 < 0 or s > s2 or (s == s2 and r < r2))


@njit(inline="always")
def _admit(sel_s: np.ndarray, sel_i: np.ndarray, s: np.float32, r: np.int64) -> None:
    """Insert (s, r) into the sorted selection if it beats the last entry."""
    k = sel_s.shape[0]
    if k == 0 or not _beats(s, r, sel_s[k - 1], sel_i[k - 1]):
        return
    j = k - 1
    while j > 0 and _beats(s, r, sel_s[j - 1], sel_i[j - 1]):
        sel_s[j] = sel_s[j - 1]
        sel_i[j] = sel_i[j - 1]
        j -= 1
    sel_s[j] = s
    sel_i[j] = r


@njit(parallel=True, cache=True)
def single_query(
    matrix: np.ndarray,
    q64: np.ndarray,
    rows: np.ndarray,
    use_rows: bool,
    n: int,
    block_rows: int,
    part_s: np.ndarray,
    part_i: np.ndarray,
) -> None:
    """Per-block top-k of one query; threads take blocks of ``block_rows`` positions.

    Positions ``0..n-1`` are row ids, or index ``rows`` (sorted int64 ids) when ``use_rows``.
    ``part_s`` / ``part_i`` are ``(n_blocks, k)`` and must arrive padded (-inf / -1); each
    block fills its own row, to be combined by :func:`merge_parts`.
    """
    d = matrix.shape[1]
    for b in prange(part_s.shape[0]):
        sel_s = part_s[b]
        sel_i = part_i[b]
        hi = min(n, (b + 1) * block_rows)
        for p in range(b * block_rows, hi):
            r = rows[p] if use_rows else np.int64(p)
            _admit(sel_s, sel_i, canonical_dot(matrix[r], q64, d), r)


@njit(cache=True)
def scan_serial(
    matrix: np.ndarray,
    q64: np.ndarray,
    rows: np.ndarray,
    use_rows: bool,
    n: int,
    sel_s: np.ndarray,
    sel_i: np.ndarray,
) -> None:
    """:func:`single_query` as one block on the calling thread (no thread launch for small n)."""
    d = matrix.shape[1]
    for p in range(n):
        r = rows[p] if use_rows else np.int64(p)
        _admit(sel_s, sel_i, canonical_dot(matrix[r], q64, d), r)


@njit(cache=True)
def merge_parts(
    part_s: np.ndarray, part_i: np.ndarray, out_s: np.ndarray, out_i: np.ndarray
) -> None:
    """Combine per-block selections ``(n_blocks, k)`` into one padded selection ``(k,)``."""
    for b in range(part_s.shape[0]):
        for j in range(part_s.shape[1]):
            if part_i[b, j] < 0:
                break
            _admit(out_s, out_i, part_s[b, j], part_i[b, j])


@njit(inline="always")
def _rescore_query(
    block: np.ndarray,
    block_ids: np.ndarray,
    cand: np.ndarray,
    lo: int,
    hi: int,
    q64: np.ndarray,
    s_row: np.ndarray,
    i_row: np.ndarray,
) -> None:
    """Score one query's candidates ``cand[lo:hi]`` (positions in ``block``) canonically."""
    for c in range(lo, hi):
        j = cand[c]
        _admit(s_row, i_row, canonical_dot(block[j], q64, block.shape[1]), block_ids[j])


@njit(parallel=True, cache=True)
def rescore_block(
    block: np.ndarray,
    block_ids: np.ndarray,
    cand: np.ndarray,
    starts: np.ndarray,
    queries64: np.ndarray,
    sel_s: np.ndarray,
    sel_i: np.ndarray,
) -> None:
    """Feed the filter's candidates of one block to every query's selection.

    ``block`` is ``(b, d) float32`` (row ``j`` has id ``block_ids[j]``); query ``qi``'s
    candidates are the block positions ``cand[starts[qi]:starts[qi + 1]]``. ``sel_s`` /
    ``sel_i`` are ``(n, k)``, updated in place; threads own whole queries.
    """
    for qi in prange(queries64.shape[0]):
        _rescore_query(
            block, block_ids, cand, starts[qi], starts[qi + 1], queries64[qi], sel_s[qi], sel_i[qi]
        )


@njit(cache=True)
def rescore_block_serial(
    block: np.ndarray,
    block_ids: np.ndarray,
    cand: np.ndarray,
    starts: np.ndarray,
    queries64: np.ndarray,
    sel_s: np.ndarray,
    sel_i: np.ndarray,
) -> None:
    """:func:`rescore_block` on the calling thread (for few candidates)."""
    for qi in range(queries64.shape[0]):
        _rescore_query(
            block, block_ids, cand, starts[qi], starts[qi + 1], queries64[qi], sel_s[qi], sel_i[qi]
        )


@njit(cache=True)
def max_row_norm(block: np.ndarray) -> float:
    """Largest Euclidean norm of the rows of a ``(b, d) float32`` block (float64; NaN if any)."""
    best = 0.0
    for j in range(block.shape[0]):
        acc = 0.0
        for i in range(block.shape[1]):
            x = np.float64(block[j, i])
            acc += x * x
        norm = math.sqrt(acc)
        if math.isnan(norm):
            return norm
        best = max(best, norm)
    return best
