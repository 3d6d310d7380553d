"""The canonical order as one Numba comparator, shared by every kernel that ranks rows.

Canonical order (DESIGN.md): score descending, then row id ascending; id -1 is padding and
comes after every row, even one scoring ``-inf``. Dense top-k (``docqa.search.kernels``), the
int8 search and BM25's heaps (``docqa.keyword.kernels``) all decide "which comes first" here.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(inline="always")
def comes_before(s: np.float32, r: np.int64, s2: np.float32, r2: np.int64) -> bool:
    """True when (score s, row r) comes before (s2, r2) in canonical order."""
    return bool(r2 < 0 or s > s2 or (s == s2 and r < r2))
