"""One question in a fresh process: the NumPy twins instead of Numba when they cost less.

Starting Numba costs a process about half a second: its import, its compiler's target context
(which, with SciPy installed, loads SciPy's BLAS wrappers) and then each kernel's cache. Over
a small index that is many times what the question itself costs. The command line's
one-question commands (``docqa ask``, ``docqa search`` with one question) call
:func:`prefer_twins`; after that, while Numba is not loaded, one question over at most
:data:`DENSE_TWIN_WORK` matrix entries or :data:`BM25_TWIN_WORK` postings and rows is
answered by the NumPy twins below. They return the kernels' hits and scores bit for bit
(``tests/search/test_oneoff.py`` checks it over random matrices, postings, masks, ties and
non-finite rows), so the choice is only about time. Services, batches and library callers
keep the kernels unless they ask.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import numpy as np

from docqa.search.reference import canonical_scores, topk_from_scores
from docqa.types import TopK

DENSE_TWIN_WORK = 32 << 20
"""Most matrix entries (rows x dimensions) one dense twin question reads: 87k passages of 384
dimensions, about 0.11 s (3.4 ns an entry on the 2-core machine measured: 47 ms for 48k
passages of 256, 170 ms for 131k of 384), against 0.58 to 0.62 s for starting Numba and
loading its cached kernels in a new process."""
BM25_TWIN_WORK = 12 << 20
"""Most BM25 rows plus postings of the question's terms one BM25 twin question reads: about
0.12 s (9.5 ns a row or posting there: 29 ms for 2M rows and 1M postings)."""
BLOCK_ROWS = 8192
"""Rows the dense twin scores at a time: its float32 products of a block (12 MB at 384
dimensions) are all it holds beside the scores, whatever the matrix's size."""

_prefer = False


def prefer_twins(on: bool = True) -> None:
    """Let small one-off questions skip Numba in this process (see the module docstring)."""
    global _prefer  # one switch per process, set by the command line
    _prefer = on


def use_twin(work: Callable[[], int], most: int) -> bool:
    """Whether a question takes a twin: asked for, Numba not yet loaded, and ``work()`` (the
    entries it reads, counted only then: a service never pays for counting) at most
    ``most`` (:data:`DENSE_TWIN_WORK` or :data:`BM25_TWIN_WORK`)."""
    return _prefer and "numba" not in sys.modules and work() <= most


def dense_one(matrix: np.ndarray, query: np.ndarray, k: int, rows: np.ndarray | None) -> TopK:
    """:func:`docqa.search.api.topk` of one query ``(d,)`` over ``matrix`` (float32, C order),
    ``rows`` the allowed sorted row ids or None, ``k`` already clamped to the rows."""
    n = matrix.shape[0] if rows is None else rows.shape[0]
    scores = np.empty(n, dtype=np.float32)
    for start in range(0, n, BLOCK_ROWS):  # a row's canonical score is its own: blocks agree
        stop = min(start + BLOCK_ROWS, n)
        block = matrix[start:stop] if rows is None else matrix[rows[start:stop]]
        scores[start:stop] = canonical_scores(block, query)
    return topk_from_scores(scores, k, rows)


def bm25_one(
    indptr: np.ndarray,
    rows: np.ndarray,
    weights: np.ndarray,
    n_docs: int,
    q_terms: np.ndarray,
    k: int,
    mask: np.ndarray | None,
) -> TopK:
    """``BM25Index.search`` of one question (term ids ``q_terms``, -1 unknown) over CSR
    postings: each distinct known term's weights added to a float64 accumulator, fewest
    postings first (ties: first appearance), as ``docqa.keyword.kernels`` adds them; the hits
    (rows with a term, within ``mask``) ranked by their float32 scores, then row id."""
    known = q_terms[q_terms >= 0]
    _, first = np.unique(known, return_index=True)
    distinct = known[np.sort(first)]
    counts = indptr[distinct + 1] - indptr[distinct]
    acc = np.zeros(n_docs, dtype=np.float64)
    for t in distinct[np.argsort(counts, kind="stable")]:
        r, w = rows[indptr[t] : indptr[t + 1]], weights[indptr[t] : indptr[t + 1]]
        if mask is not None:
            keep = mask[r]
            r, w = r[keep], w[keep]
        acc[r] += w  # a term's rows are distinct: one addition per row
    hits = np.flatnonzero(acc)  # every weight is > 0
    scores = acc[hits].astype(np.float32)
    if hits.size > k:  # only rows scoring at least the k-th best can place (ties included)
        keep = scores >= np.partition(scores, hits.size - k)[hits.size - k]
        hits, scores = hits[keep], scores[keep]
    best = np.lexsort((hits, -scores))[:k]
    out_s = np.full((1, k), -np.inf, dtype=np.float32)
    out_i = np.full((1, k), -1, dtype=np.int64)
    out_s[0, : best.size] = scores[best]
    out_i[0, : best.size] = hits[best]
    return TopK(out_s, out_i)
