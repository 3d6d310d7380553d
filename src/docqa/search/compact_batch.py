"""Batches of queries over int8 codes: a native integer kernel, or sgemm where it cannot run.

Both paths give :func:`docqa.search.topk`'s answer exactly (bit for bit, canonical order):
they only choose which rows are rescored canonically, and a row is skipped only when it is
proven to score below k rows already selected. Notation as in :mod:`docqa.search.compact`
(``s`` a row's canonical score, ``a`` its scale, ``c`` its codes, ``w`` / ``v`` its bound
terms, ``u = 2**-24``, ``t = (2 d + 32) 2**-149``).

The native kernel (AVX2 or AVX-512 VNNI, ``csrc/_compact_gemm.h``)
------------------------------------------------------------------
Each query is quantised a second time, coarsely: ``q = g b + r'`` with ``b`` integers in
``[-31, 31]`` (:func:`docqa.search.compact.quantise_queries` with ``top=COARSE``, which
also gives ``g`` and ``||r'||`` rounded up). The module's bound holds for any integer query
(its step 3 only needs ``c.b`` exact), so with ``D = c.b`` (exact in int32: ``|c| <= 128``,
``0 <= b + 31 <= 62``, ``d <= MAX_DIM``): ``s <= g a D + w ||q|| + v ||r'|| + t``. The
kernel computes ``D`` for a panel of 16 rows and 4 queries at a time with ``vpmaddubsw``
(two results added in int16 before one ``vpmaddwd``: about twice the multiply-add rate of
float32 FMA measured on AVX2, where ``vpmaddwd`` of the int16 query only matches FMA), and
skips a row for a query when ``y = fl(fl(D) a) < tau`` (float32) with, per panel,
``tau <= T - e |T| - 2**-149``, ``T = (floor - H) / g``, ``H >= max_panel(w) ||q|| +
max_panel(v) ||r'|| + t``, ``e = 2 u + u**2`` and ``floor`` the query's k-th selected score
when the call started (``dq8_threshold`` rounds every step so; its margins, relative
``2**-20`` and ``2**-48``, dwarf the float64 roundings). Proof: ``fl(D) = D (1 + d1)`` and
``y = fl(D) a (1 + d2) + n`` with ``|d1|, |d2| <= u``, ``|n| <= 2**-150`` (round to nearest
without flush-to-zero: the kernel sets MXCSR), so ``|y - a D| <= e |a D| + 2**-150``. If
``a D >= T`` then, for ``T >= 0``, ``y >= a D (1 - e) - 2**-150 >= T (1 - e) - 2**-150``;
for ``T < 0 <= a D``, ``y >= -2**-150``; for ``T <= a D < 0``, ``y >= a D (1 + e) - 2**-150
>= T (1 + e) - 2**-150``: in each case ``y >= tau``. So a skipped row has ``a D < T``, hence
``g a D + H < floor`` and ``s < floor``. Floors only rise, so it scores below k rows
selected now. Kept rows then pass the module's int16 bound against the current floor
(:func:`compact_kernels.rescore_pairs`) before a canonical rescoring.

Calls cover growing spans of rows (256, doubling to 16384) so the floors tighten early; a
call stops at a panel when the pair buffer could overflow and the next call resumes there.

The sgemm path (any CPU)
------------------------
The float32 queries times blocks of dequantised rows ``y = fl(a c)`` (float32) with BLAS
sgemm, as the float32 batch path does (:mod:`docqa.search.api`): ``|fl(y.q) - y.q| <= g(d)
||y|| ||q|| + t`` in any summation order, ``|y_i - a c_i| <= u |a c_i| + 2**-150`` so
``||x - y|| <= ||e|| + u v + d**0.5 2**-150`` and ``||y|| <= (1 + u) v + d**0.5 2**-150``.
With the module's step 1: ``|s - fl(y.q)| <= H ||q|| + 2 t``, ``H = w + (u + g(d) (1 + u))
v + 2 d**0.5 2**-150``. A row is skipped only if ``fl(y.q) < floor - S - 2**-50 |floor|``
with ``S = max_block(H) ||q|| (1 + 2**-30) + 2 t`` (the block's largest ``H``; the inflation
and the last term absorb the float64 rounding), so ``s < floor``.
"""

from __future__ import annotations

import itertools
import math
import os
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from types import ModuleType

import numba
import numpy as np

from docqa.search import compact_kernels as ck
from docqa.search.api import blas_limit, wait_all

BATCH_BLOCK_BYTES = 2 << 20
"""Bytes of a block of dequantised rows (float32) in the sgemm path, as in ``api``."""
FIRST_SPAN = 256
"""Rows of the native kernel's first call (floors are -inf until k rows are selected)."""
MAX_SPAN = 16384
"""Rows of the native kernel's calls once the span has doubled up to it."""
COARSE = 31
"""The kernel's queries are integers in ``[-COARSE, COARSE]`` (``quantise_queries`` top)."""
MAX_DIM = 270600
"""Largest d whose coarse integer dot products fit int32 (``128 * 62 * d < 2**31``)."""
PANEL = 16
"""Rows of the kernel's panel; a call needs room for ``PANEL * queries`` pairs."""
TILE = 4
"""Queries of the kernel's register tile (the packed queries are padded to a multiple)."""

_U = 2.0**-24

Out = tuple[np.ndarray, np.ndarray, np.ndarray]
"""``(sel_s (n, k) float32, sel_i (n, k) int64, rescored (n,) int64)``, filled in place."""


ISA_ENV = "DOCQA_INT8_TILE"
"""Set to ``avx2`` to keep the native kernel on its AVX2 tile where the CPU has AVX-512 VNNI
(the tests run both; the results are the same, see ``csrc/_compact_gemm.h``)."""


@cache
def native_kernel() -> ModuleType | None:
    """The AVX2 kernel module when it is built and this CPU runs it, else None."""
    try:
        from docqa import _compact
    except ImportError:  # pragma: no cover - a build without the extension
        return None
    return _compact if _compact.supported() else None


def kernel_isa() -> int:
    """The native kernel's tile: 2 (AVX-512 VNNI) where the CPU has it, unless ``ISA_ENV``
    says ``avx2``; 1 (AVX2) otherwise."""
    kernel = native_kernel()
    assert kernel is not None, "the native kernel does not run here"
    best = int(kernel.best_isa())
    return 1 if os.environ.get(ISA_ENV, "").lower() == "avx2" else best


def search(
    arrays: ck.Arrays,
    queries: tuple[np.ndarray, np.ndarray, np.ndarray],
    coarse: tuple[np.ndarray, np.ndarray],
    rows: np.ndarray | None,
    blocks: int | None,
    out: Out,
) -> None:
    """Fill ``out`` for a batch: ``queries = (qs float32, ps int16, qvs (n, 4))`` as from
    ``quantise_queries``, ``coarse`` the same with ``top=COARSE``; ``rows`` the mask's positions
    or None; ``blocks`` the rows of a block or span (None: the defaults). Workers (Numba's
    thread count) each own a share of the queries and stream through every row."""
    qs = queries[0]
    n_rows, d = arrays[1].shape
    n = n_rows if rows is None else rows.shape[0]
    native = native_kernel() is not None and d <= MAX_DIM and n < 2**31
    workers = max(1, min(numba.get_num_threads(), qs.shape[0]))
    cuts = np.linspace(0, qs.shape[0], workers + 1).astype(int).tolist()
    with blas_limit(1), ThreadPoolExecutor(max_workers=workers) as pool:
        if native:
            wait_all(pool.submit(_native_share, arrays, tuple(x[lo:hi] for x in queries),
                              tuple(x[lo:hi] for x in coarse), rows, blocks,
                              tuple(o[lo:hi] for o in out))
                  for lo, hi in itertools.pairwise(cuts))  # fmt: skip
        else:
            wait_all(pool.submit(_sgemm_share, arrays, qs[lo:hi], queries[2][lo:hi, 1], rows,
                              blocks, tuple(o[lo:hi] for o in out))
                  for lo, hi in itertools.pairwise(cuts))  # fmt: skip


def pack_queries(coarse: np.ndarray, terms: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The kernel's query inputs from ``quantise_queries(qs, top=COARSE)``: the codes plus
    ``COARSE`` as uint8 ``(n padded to TILE, d padded to 8)`` (zeros in the padding) and the
    float64 terms ``(n, 5)``: ``g, ||q||, ||r'||, t`` and a floor column (``-inf``) the
    caller updates before each call."""
    n, d = coarse.shape
    packed = np.zeros((-(-n // TILE) * TILE, -(-d // 8) * 8), dtype=np.uint8)
    packed[:n, :d] = (coarse.astype(np.int16) + COARSE).astype(np.uint8)
    out = np.empty((n, 5), dtype=np.float64)
    out[:, :4] = terms
    out[:, 4] = -np.inf
    return packed, out


def _native_share(
    arrays: ck.Arrays,
    queries: tuple[np.ndarray, ...],
    coarse: tuple[np.ndarray, ...],
    rows: np.ndarray | None,
    span: int | None,
    out: tuple[np.ndarray, ...],
) -> None:
    """One worker's loop: the kernel's candidate pairs for a span of rows, then their int16
    bound check and canonical rescoring (:func:`compact_kernels.rescore_pairs`)."""
    kernel = native_kernel()
    assert kernel is not None
    _, codes, scale, radius, code_norm = arrays
    sel_s, sel_i, rescored = out
    qs, ps, qvs = queries
    packed, terms = pack_queries(*coarse)
    ids = rows if rows is not None else np.zeros(0, dtype=np.int64)
    n = codes.shape[0] if rows is None else rows.shape[0]
    room = PANEL * packed.shape[0] * 4
    pair_q, pair_pos = np.empty(room, dtype=np.int32), np.empty(room, dtype=np.int32)
    panel = np.empty(PANEL * packed.shape[1], dtype=np.int8)
    tau = np.empty(packed.shape[0], dtype=np.float32)
    pos, step, isa = 0, span or FIRST_SPAN, kernel_isa()
    while pos < n:
        terms[:, 4] = np.where(sel_i[:, -1] >= 0, sel_s[:, -1].astype(np.float64), -np.inf)
        pos, count = kernel.candidates(codes, ids, rows is not None, scale, radius, code_norm,
                                       packed, terms, pos, min(n, pos + step), pair_q,
                                       pair_pos, panel, tau, isa)  # fmt: skip
        ck.rescore_pairs(pair_q, pair_pos, count, ids, rows is not None, arrays, qs, ps, qvs,
                         sel_s, sel_i, rescored)  # fmt: skip
        step = span or min(2 * step, MAX_SPAN)


def native_dots(codes: np.ndarray, coarse: np.ndarray) -> np.ndarray:
    """The kernel's exact ``codes . b`` for every row and coarse query ``b`` (int in
    ``[-COARSE, COARSE]``): int32 ``(N, n)``, the twin of ``codes.astype(int64) @ b.T``."""
    kernel = native_kernel()
    assert kernel is not None, "the native kernel does not run here"
    n = codes.shape[0]
    packed, terms = pack_queries(coarse, np.zeros((coarse.shape[0], 4)))
    out = np.empty((n, coarse.shape[0]), dtype=np.int32)
    ones = np.ones(n, dtype=np.float32)
    panel = np.empty(PANEL * packed.shape[1], dtype=np.int8)
    tau = np.empty(packed.shape[0], dtype=np.float32)
    kernel.dots(np.ascontiguousarray(codes), np.zeros(0, dtype=np.int64), False, ones, ones,
                ones, packed, terms, 0, n, out, panel, tau, kernel_isa())  # fmt: skip
    return out


def _sgemm_share(
    arrays: ck.Arrays,
    qs: np.ndarray,
    q_norm: np.ndarray,
    rows: np.ndarray | None,
    blocks: int | None,
    out: tuple[np.ndarray, ...],
) -> None:
    """One worker's block loop of the sgemm path (selections and counts filled in place)."""
    vectors, codes, scale, radius, code_norm = arrays
    n, d = (codes.shape[0] if rows is None else rows.shape[0]), codes.shape[1]
    step = blocks or max(64, BATCH_BLOCK_BYTES // (4 * max(d, 1)))
    gamma = d * _U / (1.0 - d * _U) if d * _U < 0.5 else math.inf
    coef = _U + gamma * (1.0 + _U)
    tiny = (2 * d + 32) * 2.0**-149
    for start in range(0, n, step):
        stop = min(n, start + step)
        ids = np.arange(start, stop, dtype=np.int64) if rows is None else rows[start:stop]
        dequantised = codes[ids].astype(np.float32) * scale[ids][:, None]
        approx = np.matmul(qs, dequantised.T)
        top = np.max(radius[ids] + coef * code_norm[ids].astype(np.float64))
        top += 2.0 * math.sqrt(d) * 2.0**-150
        slack = top * q_norm * (1.0 + 2.0**-30) + 2.0 * tiny
        ck.filter_block(approx, ids, vectors, qs, slack, *out)
