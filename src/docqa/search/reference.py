"""The plain NumPy twin of the top-k search: the executable spec the kernels are tested against.

Slow on purpose: it materialises every score and sorts them all.
"""

from __future__ import annotations

import numpy as np

from docqa.types import TopK

LANES = 16
"""Independent float32 lanes of the canonical dot product (:mod:`docqa.search.lanes`)."""


def canonical_scores(matrix: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Canonical scores ``(N,) float32`` of a float32 ``(N, d)`` matrix against a ``(d,)`` query.

    Same order as :func:`docqa.search.lanes.lane_dot`, every step a float32 NumPy operation
    (each correctly rounded, none fused): products, zero-padded to ``T = ceil(d / 16)``
    chunks of ``LANES = 16``; 16 lanes start at +0.0 and add the chunks one after another
    (``acc += prods[:, t]``); then ``acc[:, :w] += acc[:, w:2w]`` for ``w = 8, 4, 2, 1``;
    the score is ``acc[:, 0]``.
    """
    m = np.asarray(matrix, dtype=np.float32)
    q = np.asarray(query, dtype=np.float32)
    n, d = m.shape
    chunks = -(-d // LANES)
    prods = np.zeros((n, chunks * LANES), dtype=np.float32)
    np.multiply(m, q, out=prods[:, :d])
    prods = prods.reshape(n, chunks, LANES)
    acc = np.zeros((n, LANES), dtype=np.float32)
    for t in range(chunks):
        acc += prods[:, t]
    w = LANES
    while w > 1:
        w //= 2
        acc[:, :w] += acc[:, w : 2 * w]
    return acc[:, 0].copy()


def topk_from_scores(scores: np.ndarray, k: int, rows: np.ndarray | None = None) -> TopK:
    """Top-k of one score vector in canonical order, as a ``(1, k)`` :class:`TopK`.

    ``scores`` is ``(m,) float32``; ``rows`` (sorted int64, length m) gives the row id of each
    score (default ``0..m-1``). Ties keep ascending id because the sort is stable and ids ascend.
    Missing places are padded with ``-inf`` / ``-1``. A NaN score counts as ``+inf`` (ranked
    first, returned as ``+inf``), as in the kernels.
    """
    ids = np.arange(scores.shape[0], dtype=np.int64) if rows is None else rows
    scores = np.where(np.isnan(scores), np.float32(np.inf), scores).astype(np.float32)
    order = np.argsort(-scores, kind="stable")[:k]
    out_s = np.full((1, k), -np.inf, dtype=np.float32)
    out_i = np.full((1, k), -1, dtype=np.int64)
    out_s[0, : order.size] = scores[order]
    out_i[0, : order.size] = ids[order]
    return TopK(out_s, out_i)


def topk_reference(
    matrix: np.ndarray, queries: np.ndarray, k: int, *, mask: np.ndarray | None = None
) -> TopK:
    """Reference top-k: canonical scores of the allowed rows, then a stable argsort.

    ``matrix`` ``(N, d)``, ``queries`` ``(n, d)`` or ``(d,)``; ``mask`` a bool array of length
    N or an array of allowed row ids. Returns ``(n, min(k, N))`` scores float32 and ids int64.
    """
    m = np.asarray(matrix, dtype=np.float32)
    k = min(k, m.shape[0])
    qs = np.atleast_2d(np.asarray(queries, dtype=np.float32))
    rows = np.arange(m.shape[0], dtype=np.int64)
    if mask is not None:
        mk = np.asarray(mask)
        rows = np.flatnonzero(mk) if mk.dtype == np.bool_ else np.unique(mk.astype(np.int64))
    parts = [topk_from_scores(canonical_scores(m[rows], q), k, rows) for q in qs]
    scores = np.concatenate([p.scores for p in parts]) if parts else np.zeros((0, k), np.float32)
    ids = np.concatenate([p.ids for p in parts]) if parts else np.zeros((0, k), np.int64)
    return TopK(scores, ids)
