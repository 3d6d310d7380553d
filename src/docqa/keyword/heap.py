"""The bounded heap every BM25 kernel selects its top k with (Numba, canonical order).

The heap keeps at most ``k`` entries (float32 score, int64 row) with the worst one at the root,
"worst" under the canonical order (score descending, then row id ascending, ``_canonical``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from docqa import _canonical
from docqa._canonical import comes_before
from docqa.search import numba_cache

numba_cache.track(__file__, _canonical.__file__)  # the comparator is inlined


@njit(cache=True)
def sift_down(hs: np.ndarray, hi: np.ndarray, size: int, pos: int) -> None:
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
def push(hs: np.ndarray, hi: np.ndarray, size: int, k: int, s: np.float32, i: np.int64) -> int:
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
        sift_down(hs, hi, size, 0)
    return size


@njit(cache=True)
def drain(hs: np.ndarray, hi: np.ndarray, size: int, out_s: np.ndarray, out_i: np.ndarray) -> None:
    """Write the heap's entries best first into ``out_s``/``out_i`` (the heap is consumed)."""
    for last in range(size - 1, -1, -1):
        out_s[last] = hs[0]
        out_i[last] = hi[0]
        hs[0] = hs[last]
        hi[0] = hi[last]
        sift_down(hs, hi, last, 0)
