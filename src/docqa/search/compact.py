"""Exact top-k over int8 codes: scan a quarter of the bytes, rescore a few rows, same answer.

``CompactMatrix.from_float32(matrix)`` stores every row ``x`` (float32, length d) as int8
codes ``c`` with one float32 scale ``a`` per row (symmetric: ``a = max|x_i| / 127``,
``c_i = rint(x_i / a)``; see ``docs/notes/2026-12-compact.md`` for the measured comparison with scale +
offset), plus two float32 bound terms per row. A search scans the codes, gets a proven upper
bound of every row's *canonical* float32 score (:mod:`docqa.search.kernels`), and rescores
canonically, from the float32 rows, only the rows whose bound reaches the k-th canonical score
selected so far. Results are those of :func:`docqa.search.topk` on the float32 matrix, bit for
bit and in canonical order, whatever the data; only the number of rescored rows varies.

The bound
---------
Notation: ``s`` the canonical score of row ``x`` against the float32 query ``q``; ``x.q`` the
exact real dot product; ``u = 2**-24``; ``T = ceil(d / 16)``; ``m = T + 5``;
``g(m) = m u / (1 - m u)``; ``||.||`` the Euclidean norm.

1. Canonical rounding. Every product passes through at most ``m`` float32 roundings (the
   product, at most T lane additions, 4 tree additions), so (Higham, *Accuracy and Stability
   of Numerical Algorithms*, eq. 3.5) ``|s - x.q| <= g(m) sum|x_i q_i| + t <= g(m) ||x|| ||q||
   + t`` (Cauchy-Schwarz), where ``t = (2 d + 32) 2**-149`` covers gradual underflow (each of
   the at most ``2 d + 15`` float32 operations may lose ``2**-150`` beyond the relative bound),
   as in :mod:`docqa.search.api`. No overflow: a query with ``||q|| * max ||x|| >= 2**126`` is
   searched on the float32 rows directly.
2. Row quantisation. With ``e = x - a c`` (real), ``x.q = a (c.q) + e.q`` and
   ``|e.q| <= ||e|| ||q||``. The codes may be any integers: the bound only uses the stored
   ``e``, so it holds whatever rounding chose them.
3. Query quantisation. ``q = h p + r`` with ``p`` integers in ``[-P, P]``,
   ``P = min(32767, floor((2**31 - 1) / (127 d)))``, ``h = max|q_i| / P`` and ``r`` the
   (real) remainder. Then ``c.q = h (c.p) + c.r`` with ``|c.r| <= ||c|| ||r||``, and ``c.p``
   is an exact int32 (``|c.p| <= 127 P d < 2**31``, partial sums too, in any order).

Together: ``|s - a h (c.p)| <= w ||q|| + v ||r|| + t`` with the per-row terms
``w = g(m) ||x|| + ||e||`` and ``v = a ||c||``. Stored and query-side terms are computed in
float64 and rounded *up*: a sum of squares of d terms errs by at most ``(d + 2) 2**-53``
relative, a square root and a product by ``2**-53`` each, so each norm is inflated by
``1 + (d + 8) 2**-52`` (``||r||`` also by ``2**-51 ||q||`` for the rounding of ``h p_i``) and
the float64 -> float32 conversion of ``w`` and ``v`` rounds toward +inf. At search time the
centre ``C = (a h) (c.p)`` and the half-width ``H = w ||q|| + v ||r|| + t`` take two and four
float64 roundings, so the computed ``C + (H + (|C| + H) 2**-49)`` is an upper bound of ``s``
(the ``2**-49`` term is 16 times the worst float64 error; :func:`score_bounds` gives the
lower bound the same way).

Batches take :mod:`docqa.search.compact_batch` (its docstring derives their skip tests):
an AVX2 integer kernel over the codes with the query also quantised to 6 bits, then this
bound, or, on other CPUs, sgemm over dequantised codes.

The selection
-------------
A row is rescored when its upper bound is not below the selection's current k-th canonical
score (``-inf`` until k rows are selected). A skipped row therefore scores strictly below k
selected rows, and selections only improve, so it could not be in the top k. Rows are taken
in blocks (threads own blocks for one query, shares of the queries for a batch), the blocks'
selections merged in canonical order: exactly the float32 result. On random unit rows a few
dozen rows per block are rescored; when thousands tie within the bound (near-duplicates),
thousands are rescored, still exactly (the cost rises toward the float32 scan, never wrong).
"""

from __future__ import annotations

import mmap
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from docqa._checks import thread_limit
from docqa.errors import IndexCorrupt, InputError
from docqa.search import compact_batch, kernels
from docqa.search import compact_kernels as ck
from docqa.search.api import BATCH_MIN, as_matrix, as_queries, topk, topk_call
from docqa.search.compact_names import ARRAYS, STORAGES
from docqa.types import TopK

SINGLE_BLOCK_ROWS = 65536
"""Rows per thread work unit for one query (each block keeps its own k-th score)."""

_U = 2.0**-24
_FLOAT32_MAX = float(np.finfo(np.float32).max)
_BUILD_ROWS = 65536
_NO_ROWS = np.zeros(0, dtype=np.int64)


@dataclass(frozen=True, eq=False)
class CompactMatrix:
    """int8 codes of a float32 matrix, the bound terms, and the float32 rows for rescoring.

    ``vectors (N, d) float32`` (C order, may be a read-only memmap: only rescored rows are
    read), ``codes (N, d) int8``, per row ``scale``, ``radius`` (``w``) and ``code_norm``
    (``v``) ``(N,) float32`` (see the module docstring). Build with :meth:`from_float32`.
    """

    vectors: np.ndarray
    codes: np.ndarray
    scale: np.ndarray
    radius: np.ndarray
    code_norm: np.ndarray

    @classmethod
    def from_float32(cls, matrix: Any) -> CompactMatrix:
        """Quantise a finite ``(N, d)`` matrix (converted once to float32 C order)."""
        vectors = as_matrix(matrix)
        n, d = vectors.shape
        codes = np.empty((n, d), dtype=np.int8)
        terms = np.empty((3, n), dtype=np.float32)
        for start in range(0, n, _BUILD_ROWS):
            stop = min(n, start + _BUILD_ROWS)
            block = np.asarray(vectors[start:stop], dtype=np.float64)
            bad = np.flatnonzero(~np.isfinite(block).all(axis=1))
            if bad.size:
                raise InputError(
                    f"matrix row {start + int(bad[0])} contains NaN or inf; rows must be finite"
                )
            codes[start:stop], terms[:, start:stop] = _quantise_rows(block)
        return cls(vectors, codes, terms[0], terms[1], terms[2])

    @classmethod
    def from_arrays(
        cls, vectors: Any, arrays: Mapping[str, np.ndarray], files: Mapping[str, str] | None = None
    ) -> CompactMatrix:
        """Rebuild from ``to_arrays`` output (e.g. memmaps of an index) and the float32 rows.

        Raises ``IndexCorrupt`` naming the array (and its file, from ``files`` by name) that
        is missing or malformed, or whose bound terms are not all finite and non-negative
        (the skip tests assume they are; a NaN or -inf could skip a row). A memory-mapped
        ``vectors`` is advised for random access: only rescored rows are read, and the
        kernel's default read-around would pull 128 KiB from disk for each one.
        """
        _advise_random(vectors)
        vecs = as_matrix(vectors)
        n, d = vecs.shape
        want: dict[str, tuple[type[np.generic], tuple[int, ...]]] = {
            "int8_codes": (np.int8, (n, d))
        }
        want |= {name: (np.float32, (n,)) for name in ARRAYS[1:]}
        got = []
        for name, (dtype, shape) in want.items():
            if name not in arrays:
                raise IndexCorrupt(f"int8 array {name!r} is missing; rebuild the index")
            a = np.asarray(arrays[name])
            where = f"int8 array {name!r}" + (f" ({files[name]})" if files else "")
            if a.dtype != dtype or a.shape != shape or not a.flags.c_contiguous:
                raise IndexCorrupt(
                    f"{where} is {a.dtype} {a.shape}, expected {np.dtype(dtype)} "
                    f"{shape} in C order; rebuild the index"
                )
            if a.dtype == np.float32:
                check_terms(a, where)
            got.append(a)
        return cls(vecs, *got)

    def to_arrays(self) -> dict[str, np.ndarray]:
        """The stored arrays by name (see ``ARRAYS``); the float32 rows are not included."""
        return dict(zip(ARRAYS, (self.codes, self.scale, self.radius, self.code_norm), strict=True))

    def __len__(self) -> int:
        return int(self.codes.shape[0])

    @property
    def shape(self) -> tuple[int, int]:
        """``(N, d)``."""
        return (int(self.codes.shape[0]), int(self.codes.shape[1]))

    @property
    def scanned_bytes(self) -> int:
        """Bytes a full scan reads: the codes and the three per-row terms."""
        return int(
            self.codes.nbytes + self.scale.nbytes + self.radius.nbytes + self.code_norm.nbytes
        )

    @cached_property
    def _norm_bound(self) -> float:
        """An upper bound of every row's norm (``||x|| <= v + ||e|| <= v + w``)."""
        if self.codes.shape[0] == 0:
            return 0.0
        return float(np.max(self.code_norm.astype(np.float64) + self.radius))

    def _arrays(self) -> ck.Arrays:
        return (self.vectors, self.codes, self.scale, self.radius, self.code_norm)

    def topk(
        self,
        queries: Any,
        k: int,
        *,
        mask: Any = None,
        n_threads: int | None = None,
        block_rows: int | None = None,
    ) -> TopK:
        """:func:`docqa.search.topk` of the float32 rows, computed from the codes: the same
        arguments, checks and result (bit for bit, canonical order)."""
        return self.topk_counted(queries, k, mask=mask, n_threads=n_threads, block_rows=block_rows)[
            0
        ]

    def topk_counted(
        self,
        queries: Any,
        k: int,
        *,
        mask: Any = None,
        n_threads: int | None = None,
        block_rows: int | None = None,
    ) -> tuple[TopK, np.ndarray]:
        """:meth:`topk` and, per query, how many rows were rescored canonically (int64 (n,);
        N when the query was searched on the float32 rows because of the overflow guard)."""
        qs, rows, threads, blocks, sel_s, sel_i = call = topk_call(
            self.shape, queries, k, mask, n_threads, block_rows
        )
        rescored = np.zeros(qs.shape[0], dtype=np.int64)
        if call.empty:
            return TopK(sel_s, sel_i), rescored
        ps, qvs = quantise_queries(qs)
        with thread_limit(threads):
            self._search(qs, ps, qvs, rows, blocks, (sel_s, sel_i, rescored))
        return TopK(sel_s, sel_i), rescored

    def _search(
        self,
        qs: np.ndarray,
        ps: np.ndarray,
        qvs: np.ndarray,
        rows: np.ndarray | None,
        blocks: int | None,
        out: tuple[np.ndarray, np.ndarray, np.ndarray],
    ) -> None:
        """Fill ``out = (sel_s, sel_i, rescored)``: overflow-guarded queries on the float32
        rows, a batch through :func:`compact_batch.search`, else one query at a time."""
        sel_s, sel_i, rescored = out
        n = self.shape[0] if rows is None else rows.shape[0]
        ids = rows if rows is not None else _NO_ROWS
        risky = qvs[:, 1] * self._norm_bound >= 2.0**126
        if risky.any():
            guarded = topk(self.vectors, qs[risky], sel_s.shape[1], mask=rows)
            sel_s[risky], sel_i[risky], rescored[risky] = guarded.scores, guarded.ids, n
        todo = np.flatnonzero(~risky)
        if todo.size >= BATCH_MIN:
            sub_s, sub_i, sub_r = sel_s[todo], sel_i[todo], rescored[todo]
            coarse = quantise_queries(qs[todo], top=compact_batch.COARSE)
            queries = (qs[todo], ps[todo], qvs[todo])
            compact_batch.search(
                self._arrays(), queries, coarse, rows, blocks, (sub_s, sub_i, sub_r)
            )
            sel_s[todo], sel_i[todo], rescored[todo] = sub_s, sub_i, sub_r
            return
        for qi in todo:
            qv = (float(qvs[qi, 0]), float(qvs[qi, 1]), float(qvs[qi, 2]), float(qvs[qi, 3]))
            rescored[qi] = _one(self._arrays(), qs[qi], ps[qi], qv, ids, rows is not None, n,
                                blocks or SINGLE_BLOCK_ROWS, sel_s[qi], sel_i[qi])  # fmt: skip

    def score_bounds(self, query: Any) -> tuple[np.ndarray, np.ndarray]:
        """Proven ``(lower, upper)`` float64 ``(N,)`` bounds of every row's canonical score
        against one ``(d,)`` query (the search uses the upper one; see the module docstring).
        Valid when ``||q|| * max ||x|| < 2**126`` (else the search uses the float32 rows)."""
        qs = as_queries(query, self.shape[1])
        if qs.shape[0] != 1:
            raise InputError(f"score_bounds takes one query, got {qs.shape[0]}")
        ps, qvs = quantise_queries(qs)
        h, q_norm, r_norm, tiny = (float(x) for x in qvs[0])
        dots = ck.exact_dots(self.codes, ps[0]).astype(np.float64)
        center = (self.scale.astype(np.float64) * h) * dots
        half = self.radius.astype(np.float64) * q_norm + self.code_norm.astype(np.float64) * r_norm
        half = half + tiny
        margin = half + (np.abs(center) + half) * 2.0**-49
        return center - margin, center + margin


def check_terms(terms: np.ndarray, where: str) -> None:
    """Raise ``IndexCorrupt`` unless every bound term (scale, w, v) is finite and >= 0 (two
    reductions; NaN fails ``min() >= 0``)."""
    if terms.size == 0 or (terms.min() >= 0 and terms.max() <= _FLOAT32_MAX):
        return
    row = int(np.flatnonzero(~((terms >= 0) & (terms <= _FLOAT32_MAX)))[0])
    raise IndexCorrupt(
        f"{where} row {row} holds {float(terms[row])}, not a finite non-negative bound; the "
        "index is damaged: `docqa verify` names the damage, and `docqa index FOLDER --index DIR "
        "--storage int8 --verify` rebuilds it"
    )


def _advise_random(vectors: Any) -> None:
    """``madvise(MADV_RANDOM)`` on a ``np.memmap``'s mapping, where the platform has it."""
    mapping = getattr(vectors, "_mmap", None)  # np.memmap keeps its mmap.mmap here
    advice = getattr(mmap, "MADV_RANDOM", None)
    if isinstance(mapping, mmap.mmap) and advice is not None:
        mapping.madvise(advice)


def storage_arrays(storage: str, vectors: Any) -> dict[str, np.ndarray]:
    """The arrays an index of ``storage`` (one of ``STORAGES``) keeps beside its vectors."""
    if storage not in STORAGES:
        raise InputError(f"unknown storage {storage!r}; choose one of {', '.join(STORAGES)}")
    return CompactMatrix.from_float32(vectors).to_arrays() if storage == "int8" else {}


def _one(
    arrays: ck.Arrays, q: np.ndarray, p: np.ndarray, qv: ck.QueryTerms,
    rows: np.ndarray, use_rows: bool, n: int, block_rows: int,
    out_s: np.ndarray, out_i: np.ndarray,
) -> int:  # fmt: skip
    """One query's selection (``kernels.merge_parts`` of per-block ones); returns rescored."""
    if n <= block_rows:
        return int(ck.scan_serial(arrays, q, p, qv, rows, use_rows, n, out_s, out_i))
    n_blocks = -(-n // block_rows)
    part_s = np.full((n_blocks, out_s.shape[0]), -np.inf, dtype=np.float32)
    part_i = np.full((n_blocks, out_s.shape[0]), -1, dtype=np.int64)
    counts = np.zeros(n_blocks, dtype=np.int64)
    ck.single_query(arrays, q, p, qv, rows, use_rows, n, block_rows, part_s, part_i, counts)
    kernels.merge_parts(part_s, part_i, out_s, out_i)
    return int(counts.sum())


def _inflation(d: int) -> float:
    """Relative margin of a float64 norm of d terms (module docstring)."""
    return 1.0 + (d + 8) * 2.0**-52


def _round_up32(values: np.ndarray) -> np.ndarray:
    """float64 values to the smallest float32 values not below them."""
    out = values.astype(np.float32)
    low = out.astype(np.float64) < values
    out[low] = np.nextafter(out[low], np.float32(np.inf))
    return out


def _quantise_rows(block: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """int8 codes ``(b, d)`` and the float32 terms ``(3, b)`` (scale, w, v) of float64 rows."""
    d = block.shape[1]
    scale = (np.max(np.abs(block), axis=1, initial=0.0) / 127.0).astype(np.float32)
    safe = np.where(scale > 0, scale, np.float32(1.0)).astype(np.float64)
    codes = np.clip(np.rint(block / safe[:, None]), -127, 127)
    codes[scale == 0] = 0.0
    err = block - scale.astype(np.float64)[:, None] * codes
    m = -(-d // 16) + 5
    gamma = m * _U / (1.0 - m * _U)
    grow = _inflation(d)
    x_norm = np.sqrt(np.einsum("ij,ij->i", block, block)) * grow
    e_norm = np.sqrt(np.einsum("ij,ij->i", err, err)) * grow
    radius = (gamma * x_norm + e_norm) * (1.0 + 2.0**-50)
    code_norm = scale * np.sqrt(np.einsum("ij,ij->i", codes, codes)) * (1.0 + 2.0**-50)
    terms = np.stack([scale.astype(np.float64), radius, code_norm])
    return codes.astype(np.int8), _round_up32(terms)


def quantise_queries(qs: np.ndarray, top: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """int16 codes ``p (n, d)`` in ``[-top, top]`` and float64 ``(n, 4)`` terms ``(h, ||q||,
    ||r||, t)`` of finite float32 queries ``(n, d)`` (bounds rounded up; see the module
    docstring). ``top`` defaults to ``P``, the largest that keeps ``c.p`` in int32."""
    n, d = qs.shape
    top = top or min(32767, (2**31 - 1) // (127 * max(d, 1)))
    if top < 1:
        raise InputError(f"dimension {d} is too large for int8 search (at most 16909320)")
    q64 = qs.astype(np.float64)
    peak = np.max(np.abs(q64), axis=1, initial=0.0)
    step = np.where(peak > 0, peak / top, 1.0)
    ps = np.clip(np.rint(q64 / step[:, None]), -top, top)
    rest = q64 - step[:, None] * ps
    grow = _inflation(d)
    q_norm = np.sqrt(np.einsum("ij,ij->i", q64, q64)) * grow
    r_norm = np.sqrt(np.einsum("ij,ij->i", rest, rest)) * grow + 2.0**-51 * q_norm
    tiny = np.full(n, (2 * d + 32) * 2.0**-149)
    qvs = np.stack([step, q_norm, r_norm, tiny], axis=1)
    return np.ascontiguousarray(ps.astype(np.int16)), qvs
