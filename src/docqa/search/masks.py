"""Row masks shared by every search (dense and BM25): one validation, two shapes.

A mask restricts a search to some rows (one tenant's or one source's chunks). Callers give a
boolean array of length N or an array of allowed row ids; the result is the same either way.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from docqa.errors import InputError


def mask_rows(mask: Any, n: int) -> np.ndarray | None:
    """Sorted unique int64 row ids allowed by ``mask`` (None: every row).

    Raises ``InputError`` for a bool mask of the wrong length, a mask that is neither bool nor
    integer ids, or a row id outside ``0..n-1``.
    """
    if mask is None:
        return None
    m = np.asarray(mask)
    if m.dtype == np.bool_:
        if m.shape != (n,):
            raise InputError(f"a boolean mask must have shape ({n},) (one per row), got {m.shape}")
        return np.flatnonzero(m).astype(np.int64)
    if m.ndim != 1 or not (np.issubdtype(m.dtype, np.integer) or m.size == 0):
        raise InputError(
            f"mask must be a bool array of length {n} or a 1-D array of row ids, "
            f"got dtype {m.dtype} shape {m.shape}"
        )
    ids = m.astype(np.int64)
    out = ids[(ids < 0) | (ids >= n)]
    if out.size:
        raise InputError(f"mask row id {int(out[0])} is outside 0..{n - 1}")
    return np.unique(ids)


def mask_bools(mask: Any, n: int) -> np.ndarray | None:
    """The same rows as ``mask_rows`` as a C-contiguous bool ``(n,)`` array (None: every row)."""
    rows = mask_rows(mask, n)
    if rows is None:
        return None
    allowed = np.zeros(n, dtype=np.bool_)
    allowed[rows] = True
    return allowed
