"""Exact top-k search: validation and conversion at the edge, then the Numba kernels.

The kernels (and Numba) are imported when first used: a one-off question over a small
matrix may take the NumPy twin instead (``docqa.search.oneoff``).

One query walks the rows in blocks with a size-k selection per block (threads take blocks) and
an ordered merge; no score vector is materialised. A batch of at least ``BATCH_MIN`` queries
uses numpy's sgemm per block as a *filter* and ranks by canonical scores only.

The filter bound
----------------
For any summation order, ``|fl(x.q) - x.q| <= gamma_d * sum_i |x_i q_i|`` with
``gamma_d = d u / (1 - d u)`` and ``u = 2**-24`` (Higham, *Accuracy and Stability of Numerical
Algorithms*, eq. 3.5; a fused multiply-add only tightens it). This covers the BLAS score and
the canonical score alike (a product in the canonical float32 lanes meets at most
``min(d, ceil(d / 16) + 5)`` roundings, never more than d), so
``|sgemm - canonical| <= 2 gamma_d sum|x_i q_i| <= 2 gamma_d ||x|| ||q||`` (Cauchy-Schwarz);
we use the block's largest row norm, inflate by ``1 + 2**-30`` for the float64 arithmetic of
the bound itself, and add ``(2 d + 32) 2**-149`` for float32 underflow (each of the at most
``4 d + 31`` multiplications and additions of both scores may lose ``2**-150`` to gradual
underflow beyond the relative bound). A row is skipped only if
``sgemm < floor - bound - 2**-50 |floor|`` where ``floor`` is a proven lower bound on the
query's final k-th canonical score (the last term absorbs the float64 rounding of the
subtraction): then ``canonical <= sgemm + bound < floor`` and it could not have entered. The
floor is the current k-th canonical score (``-inf`` until k rows are selected: the first k
rows are rescored unfiltered). Every other row (NaN and inf included) is rescored
canonically, so batch results are identical to one-by-one results.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from functools import cache
from typing import Any, NamedTuple, Protocol, runtime_checkable

import numpy as np
from threadpoolctl import ThreadpoolController

from docqa._checks import numba_threads, positive, thread_limit, whole
from docqa.errors import DimensionMismatch, InputError
from docqa.search import oneoff
from docqa.search.masks import mask_rows
from docqa.types import TopK

BATCH_MIN = 8
"""Batches of at least this many queries take the sgemm-filter path."""
SINGLE_BLOCK_ROWS = 16384
"""Default rows per thread work unit for one query."""
BATCH_BLOCK_BYTES = 2 << 20
"""Default block size of the batch path (float32 matrix bytes per block, cache-sized)."""

_U = 2.0**-24
_NO_ROWS = np.zeros(0, dtype=np.int64)


@runtime_checkable
class SearchedMatrix(Protocol):
    """A matrix that searches itself (:class:`docqa.search.compact.CompactMatrix`: through its
    int8 codes), with :func:`topk`'s arguments and result."""

    def topk(
        self,
        queries: Any,
        k: int,
        *,
        mask: Any = None,
        n_threads: int | None = None,
        block_rows: int | None = None,
    ) -> TopK: ...


def topk(
    matrix: Any,
    queries: Any,
    k: int,
    *,
    mask: Any = None,
    n_threads: int | None = None,
    block_rows: int | None = None,
) -> TopK:
    """The ``k`` best rows of ``matrix`` for each query, by canonical score.

    ``matrix`` is ``(N, d)`` (float32 C order is used in place, read-only memmaps included;
    anything else is converted once); ``queries`` is ``(n, d)`` or ``(d,)`` (then n = 1) and
    must be finite. ``mask`` is a bool array of length N or an array of allowed row ids.
    Returns :class:`TopK` with ``scores (n, c) float32`` and ``ids (n, c) int64`` in canonical
    order (score descending, id ascending), where ``c = min(k, N)``: k is clamped to the rows
    before anything is allocated, so ``k=10**9`` costs what ``k=N`` costs. Within those ``c``
    columns, rows the mask excludes leave padding ``-inf`` / ``-1``. The matrix should be
    finite (the index writer guarantees it; ``docqa verify`` checks it); the rule for a matrix
    that is not (or whose scores overflow): a NaN score counts as ``+inf`` (returned as
    ``+inf``), ``+inf`` ranks first, ``-inf`` after every finite score and before the padding.
    So a row whose score is NaN or ``+inf`` is always among the k returned (k >= 1), and
    checking those k scores (``docqa.search.finite.check_scores``) finds it at no cost to the
    scan; the retrievers over an index do, and stop with ``IndexCorrupt``.
    ``n_threads`` (default: Numba's current setting) and ``block_rows`` never change results.
    A :class:`SearchedMatrix` (a :class:`docqa.search.compact.CompactMatrix`, searched through
    its int8 codes, with the same result) searches itself.
    """
    if isinstance(matrix, SearchedMatrix):
        return matrix.topk(queries, k, mask=mask, n_threads=n_threads, block_rows=block_rows)
    mat = as_matrix(matrix)
    qs, rows, threads, blocks, sel_s, sel_i = call = topk_call(
        mat.shape, queries, k, mask, n_threads, block_rows
    )
    if call.empty:
        return TopK(sel_s, sel_i)
    n_rows = mat.shape[0] if rows is None else rows.shape[0]
    if qs.shape[0] == 1 and oneoff.use_twin(lambda: n_rows * mat.shape[1], oneoff.DENSE_TWIN_WORK):
        return oneoff.dense_one(mat, qs[0], sel_s.shape[1], rows)
    import numba

    with thread_limit(threads):
        if qs.shape[0] >= BATCH_MIN:
            _search_batch(mat, qs, rows, blocks, sel_s, sel_i, numba.get_num_threads())
        else:
            for qi in range(qs.shape[0]):
                _search_one(mat, qs[qi], rows, blocks or SINGLE_BLOCK_ROWS, sel_s[qi], sel_i[qi])
    return TopK(sel_s, sel_i)


class TopkCall(NamedTuple):
    """:func:`topk`'s arguments checked against the matrix searched, and the result's arrays
    filled with padding (made by :func:`topk_call`)."""

    queries: np.ndarray  # (n, d) float32
    rows: np.ndarray | None  # the mask's row ids; None: every row
    threads: int | None  # Numba threads; None: its current setting
    blocks: int | None  # rows per work unit; None: the default
    scores: np.ndarray  # (n, c) float32, -inf
    ids: np.ndarray  # (n, c) int64, -1

    @property
    def empty(self) -> bool:
        """True when there is nothing to search (no query, or ``c == 0``)."""
        return self.scores.size == 0


def topk_call(
    shape: tuple[int, int],
    queries: Any,
    k: int,
    mask: Any,
    n_threads: int | None,
    block_rows: int | None,
) -> TopkCall:
    """:func:`topk`'s arguments checked for a matrix of ``shape`` ``(N, d)``; ``k`` is clamped
    to ``N`` (so ``c = min(k, N)``) before the result's arrays are allocated."""
    qs = as_queries(queries, shape[1])
    k = min(whole(k, "k"), shape[0])
    rows = mask_rows(mask, shape[0])
    threads = numba_threads(n_threads)
    blocks = None if block_rows is None else positive(block_rows, "block_rows")
    scores = np.full((qs.shape[0], k), -np.inf, dtype=np.float32)
    ids = np.full((qs.shape[0], k), -1, dtype=np.int64)
    return TopkCall(qs, rows, threads, blocks, scores, ids)


def _search_one(
    mat: np.ndarray,
    q: np.ndarray,
    rows: np.ndarray | None,
    block_rows: int,
    out_s: np.ndarray,
    out_i: np.ndarray,
) -> None:
    """Blocked single-query kernel, then the ordered merge into ``out_s`` / ``out_i`` (k,)."""
    from docqa.search import kernels

    n = mat.shape[0] if rows is None else rows.shape[0]
    use_rows = rows is not None
    ids = rows if rows is not None else _NO_ROWS
    if n <= block_rows:
        kernels.scan_serial(mat, q, ids, use_rows, n, out_s, out_i)
        return
    n_blocks = -(-n // block_rows)
    part_s = np.full((n_blocks, out_s.shape[0]), -np.inf, dtype=np.float32)
    part_i = np.full((n_blocks, out_s.shape[0]), -1, dtype=np.int64)
    kernels.single_query(mat, q, ids, use_rows, n, block_rows, part_s, part_i)
    kernels.merge_parts(part_s, part_i, out_s, out_i)


def _search_batch(
    mat: np.ndarray,
    qs: np.ndarray,
    rows: np.ndarray | None,
    block_rows: int | None,
    sel_s: np.ndarray,
    sel_i: np.ndarray,
    n_threads: int,
) -> None:
    """sgemm per block as a filter, canonical rescoring of the survivors (see module doc).

    Each of ``n_threads`` workers owns a contiguous share of the queries and streams through
    the row blocks on its own: single-threaded sgemm, then filter and rescore while the
    block's scores are still in cache. No barrier per block and no hand-off between BLAS's
    threads and ours (measured here: about 1.3x faster than one multi-threaded sgemm per block
    followed by a threaded filter). Queries are independent, so the split changes nothing.
    """
    from docqa.search import kernels

    d = mat.shape[1]
    step = block_rows or max(64, BATCH_BLOCK_BYTES // (4 * max(d, 1)))
    q64 = qs.astype(np.float64)
    gamma = d * _U / (1.0 - d * _U) if d * _U < 0.5 else math.inf
    scale = 2.0 * gamma * (1.0 + 2.0**-30) * np.sqrt(np.einsum("ij,ij->i", q64, q64))
    n = mat.shape[0] if rows is None else rows.shape[0]
    ids = rows if rows is not None else _NO_ROWS
    norms = np.empty(-(-n // step), dtype=np.float64)
    tiny = (2 * d + 32) * 2.0**-149
    workers = max(1, min(n_threads, qs.shape[0]))
    with blas_limit(1), ThreadPoolExecutor(max_workers=workers) as pool:
        # Every worker's bound needs every block's largest row norm: computed once, shared.
        cuts = np.linspace(0, norms.size, workers + 1).astype(int).tolist()
        norm_args = (mat, ids, rows is not None, n, step)
        wait_all(pool.submit(kernels.block_max_norms, *norm_args, lo, hi, norms)
              for lo, hi in itertools.pairwise(cuts))  # fmt: skip
        with np.errstate(invalid="ignore", over="ignore"):
            slack = scale[None, :] * norms[:, None] + tiny  # (blocks, queries)
        cuts = np.linspace(0, qs.shape[0], workers + 1).astype(int).tolist()
        wait_all(pool.submit(_filter_blocks, mat, rows, step, qs[lo:hi],
                          slack[:, lo:hi], sel_s[lo:hi], sel_i[lo:hi])
              for lo, hi in itertools.pairwise(cuts))  # fmt: skip


def wait_all(futures: Iterable[Future[None]]) -> None:
    """Wait for every future (all submitted first), raising the first error."""
    for future in list(futures):
        future.result()


def _filter_blocks(
    mat: np.ndarray,
    rows: np.ndarray | None,
    step: int,
    qs: np.ndarray,
    slack: np.ndarray,
    sel_s: np.ndarray,
    sel_i: np.ndarray,
) -> None:
    """One worker's block loop over all rows for its queries (selections filled in place):
    sgemm, then filter and rescore. ``slack`` is ``(blocks, queries)``."""
    from docqa.search import kernels

    n = mat.shape[0] if rows is None else rows.shape[0]
    for b, start in enumerate(range(0, n, step)):
        stop = min(n, start + step)
        if rows is None:
            block, ids = mat[start:stop], np.arange(start, stop, dtype=np.int64)
        else:
            # Each worker gathers the allowed rows itself: the copy is memory-bound and small
            # next to the sgemm, and sharing it would put a barrier back between the workers.
            ids = rows[start:stop]
            block = mat[ids]
        with np.errstate(invalid="ignore", over="ignore"):  # a damaged row: rescored below
            approx = np.matmul(qs, block.T)
        kernels.filter_rescore(approx, block, ids, qs, slack[b], sel_s, sel_i)


def as_matrix(matrix: Any) -> np.ndarray:
    """``matrix`` as a float32 C-order ``(N, d)`` array (in place when it is one already)."""
    mat = np.asarray(matrix)
    if mat.ndim != 2:
        raise InputError(f"matrix must be 2-D (N, d), got shape {mat.shape}")
    if mat.dtype != np.float32 or not mat.flags.c_contiguous:
        mat = np.ascontiguousarray(mat, dtype=np.float32)
    return mat


def as_queries(queries: Any, d: int) -> np.ndarray:
    """``queries`` (``(n, d)`` or ``(d,)``, finite) as a float32 C-order ``(n, d)`` array."""
    qs = np.asarray(queries)
    if qs.ndim == 1:
        qs = qs[None, :]
    if qs.ndim != 2:
        raise InputError(f"queries must be 1-D (d,) or 2-D (n, d), got shape {qs.shape}")
    if qs.shape[1] != d:
        raise DimensionMismatch(
            f"queries have dimension {qs.shape[1]} but the matrix has dimension {d}; "
            "embed the queries with the embedder the matrix was built with"
        )
    qs = np.ascontiguousarray(qs, dtype=np.float32)
    bad = np.flatnonzero(~np.isfinite(qs).all(axis=1))
    if bad.size:
        raise InputError(f"query {int(bad[0])} contains NaN or inf; queries must be finite")
    return qs


@contextmanager
def blas_limit(n_threads: int) -> Iterator[None]:
    """Limit the BLAS thread pool (sgemm of the batch path) to ``n_threads``, then restore it."""
    with _threadpools().limit(limits=n_threads, user_api="blas"):
        yield


@cache
def _threadpools() -> ThreadpoolController:
    """The process's thread pools, inspected once (inspection walks every loaded library)."""
    return ThreadpoolController()
