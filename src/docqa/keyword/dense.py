"""BM25's dense scoring path (Numba): every posting of a query added into one accumulator over
all rows, then a single pass over the rows selects the top k and clears the accumulator.

The longest terms (``df >= N / 2``) may also be given as dense columns of weights (0.0 where a
row lacks the term): adding a column is a vector add over all rows instead of a scatter of
postings. Adding 0.0 leaves a partial sum unchanged, so a row's score is the same sum, in the
same order, either way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numba import njit

from docqa import _canonical
from docqa._canonical import comes_before
from docqa.keyword import heap
from docqa.keyword.heap import drain, push
from docqa.search import numba_cache

if TYPE_CHECKING:
    from docqa.keyword.kernels import Postings

# The selection inlines the comparator and the heap: an edit there must recompile it.
numba_cache.track(__file__, _canonical.__file__, heap.__file__)

CHUNK = 16
"""Rows per step of the selection pass (``select_and_clear``)."""


@njit(cache=True)
def add_postings(
    indptr: np.ndarray, rows: np.ndarray, weights: np.ndarray, t: int, mask: np.ndarray,
    use_mask: bool, acc: np.ndarray,
) -> None:  # fmt: skip
    """Add term ``t``'s postings to ``acc`` (only the ``mask`` rows when ``use_mask``)."""
    if use_mask:
        for p in range(indptr[t], indptr[t + 1]):
            if mask[rows[p]]:
                acc[rows[p]] += weights[p]
    else:
        for p in range(indptr[t], indptr[t + 1]):
            acc[rows[p]] += weights[p]


@njit(cache=True)
def add_column(column: np.ndarray, mask: np.ndarray, use_mask: bool, acc: np.ndarray) -> None:
    """Add a dense column of weights to ``acc[:N]`` (only the ``mask`` rows when ``use_mask``;
    the others get 0.0, which changes nothing)."""
    if use_mask:
        for r in range(column.size):
            acc[r] += column[r] if mask[r] else 0.0
    else:
        for r in range(column.size):
            acc[r] += column[r]


@njit(cache=True)
def select_and_clear(
    acc: np.ndarray, hs: np.ndarray, hi: np.ndarray, k: int, out_s: np.ndarray,
    out_i: np.ndarray,
) -> None:  # fmt: skip
    """Top k of the rows with ``acc > 0`` (every weight is positive, so those are the hits)
    by float32 score into ``out_s`` / ``out_i``, zeroing ``acc``.

    One pass, ``CHUNK`` rows at a time: a chunk whose largest value is below ``lo`` (the common
    case once the heap is full) is only zeroed, in code the compiler vectorises. ``lo`` is a
    float64 bound that changes only when the heap does: it admits every hit (a > 0) until the
    heap is full, then every a that could round to the heap's worst score or above (rounding to
    float32 moves a normal number by < 2**-24 of itself). ``acc`` has CHUNK zeros of padding
    past the last row.
    """
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
                    size = push(hs, hi, size, k, s, np.int64(r))
                    if size == k and hs[0] > np.float32(1e-30):
                        lo = np.float64(hs[0]) * (1.0 - 2.0**-20)
    drain(hs, hi, size, out_s, out_i)


@njit(cache=True)
def dense_query(
    index: Postings, terms: np.ndarray, nt: int, mask: np.ndarray, use_mask: bool,
    acc: np.ndarray, hs: np.ndarray, hi: np.ndarray, k: int, out_s: np.ndarray,
    out_i: np.ndarray,
) -> None:  # fmt: skip
    """Score one query over its ``nt`` sorted ``terms`` densely and write its top k: each term
    added to ``acc`` in order (as a column when it has one, else by its postings), then one
    pass selects the hits and zeroes ``acc`` (``select_and_clear``)."""
    for i in range(nt):
        t = terms[i]
        c = index.column_of[t]
        if c >= 0:
            add_column(index.columns[c], mask, use_mask, acc)
        else:
            add_postings(index.indptr, index.rows, index.weights, t, mask, use_mask, acc)
    select_and_clear(acc, hs, hi, k, out_s, out_i)
