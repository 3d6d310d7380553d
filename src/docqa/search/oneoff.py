"""One question in a fresh process: the NumPy twins instead of Numba when they cost less.

Starting Numba costs a process about half a second: its import, its compiler's target context
(which, with SciPy installed, loads SciPy's BLAS wrappers) and then each kernel's cache. Over
a small index that is many times what the question itself costs. The command line's
one-question commands (``docqa ask``, ``docqa search`` with one question) call
:func:`prefer_twins`; after that, while Numba is not loaded, one question over at most
``TWIN_WORK`` matrix entries (dense) or postings and rows (BM25) is answered by the NumPy twins
below. They return the kernels' hits and scores bit for bit (``tests/search/test_oneoff.py``
checks it over random matrices, postings, masks, ties and non-finite rows), so the choice is
only about time. Services, batches and library callers keep the kernels unless they ask.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import numpy as np

from docqa.search.reference import canonical_scores, topk_from_scores
from docqa.types import TopK

TWIN_WORK = 3 << 20
"""Most matrix entries (rows x dimensions) or BM25 rows plus postings one twin question reads
(8k passages of 384 dimensions): there the dense twin takes about 10 ms and the BM25 twin
under 0.1 s on the 2-core machine measured, well under what starting Numba costs."""

_prefer = False


def prefer_twins(on: bool = True) -> None:
    """Let small one-off questions skip Numba in this process (see the module docstring)."""
    global _prefer  # one switch per process, set by the command line
    _prefer = on


def use_twin(work: Callable[[], int]) -> bool:
    """Whether a question takes a twin: asked for, Numba not yet loaded, and ``work()`` (the
    entries it reads, counted only then: a service never pays for counting) small enough."""
    return _prefer and "numba" not in sys.modules and work() <= TWIN_WORK


def dense_one(matrix: np.ndarray, query: np.ndarray, k: int, rows: np.ndarray | None) -> TopK:
    """:func:`docqa.search.api.topk` of one query ``(d,)`` over ``matrix`` (float32, C order),
    ``rows`` the allowed sorted row ids or None, ``k`` already clamped to the rows."""
    if rows is None:
        return topk_from_scores(canonical_scores(matrix, query), k)
    return topk_from_scores(canonical_scores(matrix[rows], query), k, rows)


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
