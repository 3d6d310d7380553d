"""Numba kernels of the exact search over int8 codes (validation and the bound live in
:mod:`docqa.search.compact`).

``int_dot(codes_row, p, d)`` is the exact integer dot product of an int8 row with an int16
query: products and sums in int32 (no overflow: the caller keeps ``127 * max|p| * d`` below
``2**31``), so any order gives the same value and LLVM may vectorise it freely. It is a Numba
``@intrinsic`` emitting vector IR (32 codes a step, adjacent products added pairwise, which
x86 lowers to ``vpmaddwd``): plain Numba loops widen ``int32 * int32`` to int64 and ran 2.7x
slower here. It lives in this module, beside its callers, because Numba keys each kernel's
on-disk cache on the file that defines the kernel: an intrinsic in another file could change
without invalidating them. The IR helpers it shares with ``lane_dot`` (its operands' data
pointers, shuffle masks) come from :mod:`docqa.search.lanes`, which these kernels' cache
tracks too.

Each kernel walks rows, computes each row's upper bound ``hi`` of its canonical float32 score
(the formula of :func:`docqa.search.compact.score_bounds`), and rescores a row canonically
from the float32 vectors only when ``hi`` reaches the selection's current k-th canonical
score (``-inf`` until k rows are selected). A skipped row scores below a row already selected
k times over, so it could not have entered: the selection equals the float32 search's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import numpy as np
from llvmlite import ir
from numba import njit, prange, types
from numba.core import cgutils
from numba.extending import intrinsic

from docqa import _canonical
from docqa.search import kernels, lanes, numba_cache
from docqa.search.kernels import admit, below32, canonical_dot, next_candidate

# These kernels inline the dense kernels' selection and dot product: edits there recompile them.
numba_cache.track(__file__, kernels.__file__, lanes.__file__, _canonical.__file__)

Arrays = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]
"""``(vectors (N, d) float32, codes (N, d) int8, scale, radius, code_norm (N,) float32)``."""
QueryTerms = tuple[float, float, float, float]
"""One query's bound terms ``(h, ||q||, ||r||, t)`` (see ``docqa.search.compact``)."""

STEP = 32
"""Codes per vector step of :func:`int_dot`."""


def _int_body(builder: ir.IRBuilder, row_p: ir.Value, q_p: ir.Value, d: ir.Value) -> ir.Value:
    """Sum of the full 32-code steps as one int32 (pairwise products, then a tree)."""
    i32 = ir.IntType(32)
    wide = ir.VectorType(i32, STEP)
    half = ir.VectorType(i32, STEP // 2)
    slot = cgutils.alloca_once_value(builder, ir.Constant(half, None))  # type: ignore[no-untyped-call]
    width = ir.Constant(d.type, STEP)
    with cgutils.for_range(builder, builder.sdiv(d, width)) as loop:
        off = builder.mul(loop.index, width)
        x_ptr = builder.bitcast(
            builder.gep(row_p, [off]), ir.VectorType(ir.IntType(8), STEP).as_pointer()
        )
        q_ptr = builder.bitcast(
            builder.gep(q_p, [off]), ir.VectorType(ir.IntType(16), STEP).as_pointer()
        )
        prod = builder.mul(
            builder.sext(builder.load(x_ptr, align=1), wide),
            builder.sext(builder.load(q_ptr, align=2), wide),
        )
        even = builder.shuffle_vector(prod, prod, lanes.indices(range(0, STEP, 2)))
        odd = builder.shuffle_vector(prod, prod, lanes.indices(range(1, STEP, 2)))
        builder.store(builder.add(builder.load(slot), builder.add(even, odd)), slot)
    acc = builder.load(slot)
    w = STEP // 2
    while w > 1:
        w //= 2
        lo = builder.shuffle_vector(acc, acc, lanes.indices(range(w)))
        hi = builder.shuffle_vector(acc, acc, lanes.indices(range(w, 2 * w)))
        acc = builder.add(lo, hi)
    return builder.extract_element(acc, ir.Constant(i32, 0))


def _int_dot(typingctx: Any, row: types.Array, q: types.Array, d: types.Integer) -> Any:
    """Exact int32 dot product of a C-contiguous int8 ``row`` and int16 ``q`` (first ``d``)."""
    ok = (
        isinstance(row, types.Array) and row.dtype == types.int8 and row.layout == "C"
        and isinstance(q, types.Array) and q.dtype == types.int16 and q.layout == "C"
    )  # fmt: skip
    if not ok:
        return None
    sig = types.int32(row, q, types.intp)

    def codegen(context: Any, builder: ir.IRBuilder, signature: Any, args: Any) -> ir.Value:
        row_p, q_p = lanes.operands(context, builder, signature, args)
        d = args[2]
        i32 = ir.IntType(32)
        total = cgutils.alloca_once_value(builder, _int_body(builder, row_p, q_p, d))  # type: ignore[no-untyped-call]
        rem = builder.srem(d, ir.Constant(d.type, STEP))
        start = builder.sub(d, rem)
        with cgutils.for_range(builder, rem) as loop:
            i = builder.add(start, loop.index)
            a = builder.sext(builder.load(builder.gep(row_p, [i])), i32)
            b = builder.sext(builder.load(builder.gep(q_p, [i])), i32)
            builder.store(builder.add(builder.load(total), builder.mul(a, b)), total)
        return builder.load(total)

    return sig, codegen


int_dot = cast(Callable[[np.ndarray, np.ndarray, int], int], intrinsic(_int_dot))
"""``int_dot(row, p, d) -> int32``, callable from ``@njit`` code only (see ``_int_dot``)."""


@njit(inline="always")
def _upper(
    dot: int, scale: np.float32, radius: np.float32, code_norm: np.float32,
    qv: QueryTerms,
) -> float:  # fmt: skip
    """Upper bound of a row's canonical score (see ``docqa.search.compact``): ``qv`` is the
    query's ``(step, norm, residual norm, tiny)``."""
    center = (np.float64(scale) * qv[0]) * np.float64(dot)
    half = np.float64(radius) * qv[1] + np.float64(code_norm) * qv[2] + qv[3]
    return center + (half + (abs(center) + half) * 2.0**-49)


@njit(inline="always")
def _pass(
    arrays: Arrays,
    q: np.ndarray, p: np.ndarray, qv: QueryTerms,
    rows: np.ndarray, use_rows: bool, lo: int, hi: int, sel_s: np.ndarray, sel_i: np.ndarray,
) -> int:  # fmt: skip
    """Positions ``lo:hi`` of one query into its selection; returns how many were rescored."""
    vectors, codes, scale, radius, code_norm = arrays
    k = sel_s.shape[0]
    d = codes.shape[1]
    floor = np.float64(sel_s[k - 1]) if sel_i[k - 1] >= 0 else -np.inf
    rescored = 0
    for pos in range(lo, hi):
        r = rows[pos] if use_rows else np.int64(pos)
        up = _upper(int_dot(codes[r], p, d), scale[r], radius[r], code_norm[r], qv)
        if not up < floor:
            admit(sel_s, sel_i, canonical_dot(vectors[r], q, d), r)
            rescored += 1
            if sel_i[k - 1] >= 0:
                floor = np.float64(sel_s[k - 1])
    return rescored


@njit(parallel=True, cache=True)
def single_query(
    arrays: Arrays,
    q: np.ndarray, p: np.ndarray, qv: QueryTerms,
    rows: np.ndarray, use_rows: bool, n: int, block_rows: int,
    part_s: np.ndarray, part_i: np.ndarray, rescored: np.ndarray,
) -> None:  # fmt: skip
    """Per-block selections of one query; threads take blocks of ``block_rows`` positions.

    ``arrays`` is ``(vectors (N, d) float32, codes (N, d) int8, scale, radius, code_norm
    (N,) float32)``; ``q`` the float32 query, ``p`` its int16 codes, ``qv`` its bound terms.
    Positions ``0..n-1`` are row ids or index ``rows`` (sorted int64) when ``use_rows``.
    ``part_s`` / ``part_i`` ``(n_blocks, k)`` arrive padded and are combined by
    ``kernels.merge_parts``; ``rescored[b]`` counts block b's canonical rescorings.
    """
    for b in prange(part_s.shape[0]):
        stop = min(n, (b + 1) * block_rows)
        rescored[b] = _pass(arrays, q, p, qv, rows, use_rows, b * block_rows, stop,
                            part_s[b], part_i[b])  # fmt: skip


@njit(cache=True)
def scan_serial(
    arrays: Arrays,
    q: np.ndarray, p: np.ndarray, qv: QueryTerms,
    rows: np.ndarray, use_rows: bool, n: int, sel_s: np.ndarray, sel_i: np.ndarray,
) -> int:  # fmt: skip
    """:func:`single_query` as one block on the calling thread; returns the rescored count."""
    return _pass(arrays, q, p, qv, rows, use_rows, 0, n, sel_s, sel_i)


@njit(cache=True)
def exact_dots(codes: np.ndarray, p: np.ndarray) -> np.ndarray:
    """``int_dot`` of every row of ``codes`` with ``p``: int32 ``(N,)`` (for the twin tests)."""
    out = np.empty(codes.shape[0], dtype=np.int32)
    for r in range(codes.shape[0]):
        out[r] = int_dot(codes[r], p, codes.shape[1])
    return out


@njit(cache=True, nogil=True)
def filter_block(
    approx: np.ndarray, block_ids: np.ndarray, vectors: np.ndarray, qs: np.ndarray,
    slack: np.ndarray, sel_s: np.ndarray, sel_i: np.ndarray, rescored: np.ndarray,
) -> None:  # fmt: skip
    """The batch pass over one block: ``approx (nq, b) float32`` is sgemm of the queries with
    the block's dequantised codes, ``block_ids (b,)`` their row ids, ``slack (nq,) float64``
    each query's bound for the block ("Batches" in ``docqa.search.compact``). Rows that
    could reach a query's k-th canonical score are rescored from ``vectors`` into its
    selection ``sel_s`` / ``sel_i`` ``(nq, k)``; ``rescored (nq,)`` counts them. The scan
    for candidates is ``kernels.next_candidate`` (vectorised). Serial, GIL-free."""
    k = sel_s.shape[1]
    d = vectors.shape[1]
    for qi in range(approx.shape[0]):
        row, out_s, out_i = approx[qi], sel_s[qi], sel_i[qi]
        floor = np.float64(out_s[k - 1]) if out_i[k - 1] >= 0 else -np.inf
        threshold = floor - slack[qi] - abs(floor) * 2.0**-50
        t32 = below32(threshold)
        j = next_candidate(row, 0, t32)
        while j < row.shape[0]:
            if not np.float64(row[j]) < threshold:
                r = block_ids[j]
                admit(out_s, out_i, canonical_dot(vectors[r], qs[qi], d), r)
                rescored[qi] += 1
                if out_i[k - 1] >= 0 and np.float64(out_s[k - 1]) > floor:
                    floor = np.float64(out_s[k - 1])
                    threshold = floor - slack[qi] - abs(floor) * 2.0**-50
                    t32 = below32(threshold)
            j = next_candidate(row, j + 1, t32)


@njit(cache=True, nogil=True)
def rescore_pairs(
    pair_q: np.ndarray, pair_pos: np.ndarray, count: int, rows: np.ndarray, use_rows: bool,
    arrays: Arrays, qs: np.ndarray, ps: np.ndarray, qvs: np.ndarray,
    sel_s: np.ndarray, sel_i: np.ndarray, rescored: np.ndarray,
) -> None:  # fmt: skip
    """The native batch kernel's first ``count`` kept pairs ``(query, position)``
    (``docqa.search.compact_batch``): each row is rescored canonically into the query's
    selection when its int16 upper bound (``_upper``) reaches the current k-th score.
    ``qs`` / ``ps`` / ``qvs`` are the float32 queries, their int16 codes and bound terms
    ``(n, 4)``; ``rescored (n,)`` counts the rescorings. Serial, GIL-free."""
    vectors, codes, scale, radius, code_norm = arrays
    k = sel_s.shape[1]
    d = codes.shape[1]
    for i in range(count):
        qi = pair_q[i]
        r = rows[pair_pos[i]] if use_rows else np.int64(pair_pos[i])
        out_s, out_i = sel_s[qi], sel_i[qi]
        floor = np.float64(out_s[k - 1]) if out_i[k - 1] >= 0 else -np.inf
        qv = (qvs[qi, 0], qvs[qi, 1], qvs[qi, 2], qvs[qi, 3])
        up = _upper(int_dot(codes[r], ps[qi], d), scale[r], radius[r], code_norm[r], qv)
        if not up < floor:
            admit(out_s, out_i, canonical_dot(vectors[r], qs[qi], d), r)
            rescored[qi] += 1
