"""Numba kernels of the exact top-k search (``@njit`` only; validation lives in ``api.py``).

The canonical score
-------------------
``canonical_dot(row, q, d)`` is *the* score of a row: float32 products accumulated in 16
independent float32 lanes (lane ``l`` adds elements ``l, l+16, l+32, ...`` in order, the last
chunk zero-padded), the lanes summed by a fixed pairwise tree (``w = 8, 4, 2, 1``); the exact
order is in :mod:`docqa.search.lanes`, which emits it as SIMD code. Nothing is reassociated
or fused (no ``fastmath``), so a row has the same score in every kernel, batch, block and
thread. :func:`docqa.search.reference.canonical_scores` is the NumPy twin of exactly this
order.

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

from docqa import _canonical
from docqa._canonical import comes_before
from docqa.search import lanes, numba_cache
from docqa.search.lanes import lane_dot

# The kernels inline lanes.py's dot product: an edit there must recompile them too.
numba_cache.track(__file__, lanes.__file__, _canonical.__file__)


@njit(inline="always")
def canonical_dot(row: np.ndarray, q: np.ndarray, d: int) -> np.float32:
    """Canonical score (float32) of a C-contiguous float32 row against a C-contiguous float32
    query (both of length d): :func:`docqa.search.lanes.lane_dot`."""
    return np.float32(lane_dot(row, q, d))


@njit(inline="always")
def admit(sel_s: np.ndarray, sel_i: np.ndarray, s: np.float32, r: np.int64) -> None:
    """Insert (s, r) into the sorted selection if it beats the last entry. A NaN score counts
    as ``+inf`` (kept as a NaN it would compare false with everything and break the order): it
    ranks first, so a damaged row always reaches the top k, where callers can see it."""
    k = sel_s.shape[0]
    if np.isnan(s):
        s = np.float32(np.inf)
    if k == 0 or not comes_before(s, r, sel_s[k - 1], sel_i[k - 1]):
        return
    j = k - 1
    while j > 0 and comes_before(s, r, sel_s[j - 1], sel_i[j - 1]):
        sel_s[j] = sel_s[j - 1]
        sel_i[j] = sel_i[j - 1]
        j -= 1
    sel_s[j] = s
    sel_i[j] = r


@njit(parallel=True, cache=True)
def single_query(
    matrix: np.ndarray,
    q: np.ndarray,
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
            admit(sel_s, sel_i, canonical_dot(matrix[r], q, d), r)


@njit(cache=True)
def scan_serial(
    matrix: np.ndarray,
    q: np.ndarray,
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
        admit(sel_s, sel_i, canonical_dot(matrix[r], q, d), r)


@njit(cache=True)
def merge_parts(
    part_s: np.ndarray, part_i: np.ndarray, out_s: np.ndarray, out_i: np.ndarray
) -> None:
    """Combine per-block selections ``(n_blocks, k)`` into one padded selection ``(k,)``."""
    for b in range(part_s.shape[0]):
        for j in range(part_s.shape[1]):
            if part_i[b, j] < 0:
                break
            admit(out_s, out_i, part_s[b, j], part_i[b, j])


@njit(inline="always")
def below32(t: float) -> np.float32:
    """The largest float32 <= ``t`` (NaN stays NaN)."""
    f = np.float32(t)
    if np.float64(f) > t:
        f = np.nextafter(f, np.float32(-np.inf))
    return f


@njit(inline="never")
def next_candidate(approx: np.ndarray, j: int, t32: np.float32) -> int:
    """The first position ``>= j`` whose score is not below ``t32`` (NaN scores and a NaN
    ``t32`` count as candidates), or ``approx.shape[0]``. A tight loop of its own, 16 scores
    per step, so the compiler vectorises it (inside the rescoring loop it stayed scalar and
    ran 2-3x slower)."""
    b = approx.shape[0]
    while j + 16 <= b:
        hits = 0
        for x in range(16):
            hits += not approx[j + x] < t32
        if hits:
            break
        j += 16
    while j < b and approx[j] < t32:
        j += 1
    return j


@njit(inline="always")
def _filter_query(
    approx: np.ndarray,
    block: np.ndarray,
    block_ids: np.ndarray,
    q: np.ndarray,
    slack: float,
    sel_s: np.ndarray,
    sel_i: np.ndarray,
) -> None:
    """One query's pass over a block: rows whose sgemm score ``approx[j]`` could still reach
    the selection are rescored canonically and admitted. The floor is the selection's k-th
    canonical score once it is full, ``-inf`` before (so the first k rows are all rescored),
    and rises as rows enter (see ``docqa.search.api`` for the bound). ``t32 <= threshold``
    makes the float32 scan a conservative prefilter; the float64 test decides."""
    k = sel_s.shape[0]
    d = block.shape[1]
    floor = np.float64(sel_s[k - 1]) if sel_i[k - 1] >= 0 else -np.inf
    threshold = floor - slack - abs(floor) * 2.0**-50
    t32 = below32(threshold)
    j = next_candidate(approx, 0, t32)
    while j < approx.shape[0]:
        if not np.float64(approx[j]) < threshold:
            admit(sel_s, sel_i, canonical_dot(block[j], q, d), block_ids[j])
            if sel_i[k - 1] >= 0 and np.float64(sel_s[k - 1]) > floor:
                floor = np.float64(sel_s[k - 1])
                threshold = floor - slack - abs(floor) * 2.0**-50
                t32 = below32(threshold)
        j = next_candidate(approx, j + 1, t32)


@njit(cache=True, nogil=True)
def filter_rescore(
    approx: np.ndarray,
    block: np.ndarray,
    block_ids: np.ndarray,
    queries: np.ndarray,
    slack: np.ndarray,
    sel_s: np.ndarray,
    sel_i: np.ndarray,
) -> None:
    """Filter one block's sgemm scores ``approx`` ``(n, b) float32`` and rescore the survivors
    canonically into the selections ``sel_s`` / ``sel_i`` ``(n, k)`` (in place).

    ``block`` is ``(b, d) float32`` with row ids ``block_ids``; ``slack`` is ``(n,) float64``,
    each query's bound for this block. Requires ``k >= 1``. Serial and GIL-free: the caller splits
    the queries across its own threads (no OpenMP pool, whose spinning workers halved
    sgemm's speed here).
    """
    for qi in range(approx.shape[0]):
        _filter_query(approx[qi], block, block_ids, queries[qi], slack[qi], sel_s[qi], sel_i[qi])


@njit(inline="always")
def _row_norm(row: np.ndarray) -> float:
    """Euclidean norm of a float32 row, in float64."""
    # Four running sums for instruction-level parallelism; the order does not matter to the
    # filter bound (float32 squares are exact in float64; 256 additions err < 2**-44
    # relative, far inside the bound's 1 + 2**-30 inflation).
    d = row.shape[0]
    a0 = a1 = a2 = a3 = 0.0
    for i in range(0, d - 3, 4):
        x0 = np.float64(row[i])
        x1 = np.float64(row[i + 1])
        x2 = np.float64(row[i + 2])
        x3 = np.float64(row[i + 3])
        a0 += x0 * x0
        a1 += x1 * x1
        a2 += x2 * x2
        a3 += x3 * x3
    for i in range(d - d % 4, d):
        x0 = np.float64(row[i])
        a0 += x0 * x0
    return math.sqrt((a0 + a1) + (a2 + a3))


@njit(cache=True, nogil=True)
def block_max_norms(
    matrix: np.ndarray,
    rows: np.ndarray,
    use_rows: bool,
    n: int,
    step: int,
    b_lo: int,
    b_hi: int,
    out: np.ndarray,
) -> None:
    """``out[b]`` = the largest row norm (float64; NaN if any) of block ``b`` (positions
    ``b * step`` up to ``n``, as in :func:`single_query`), for blocks ``b_lo:b_hi``."""
    for b in range(b_lo, b_hi):
        best = 0.0
        for p in range(b * step, min(n, (b + 1) * step)):
            norm = _row_norm(matrix[rows[p] if use_rows else p])
            if math.isnan(norm):
                best = norm
                break
            best = max(best, norm)
        out[b] = best
