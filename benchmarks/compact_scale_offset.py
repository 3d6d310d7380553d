"""Symmetric int8 codes vs scale + offset: which gives the tighter bound (fewer candidates)?

For each kind of rows, both quantisations are applied and, for 50 queries, the rows whose
upper bound reaches the k-th best lower bound are counted (the candidates the bound cannot
exclude; the issue's "candidate count"), with the half-width ``w ||q|| + v ||r||`` of
``docqa.search.compact`` (the offset variant adds ``b * sum(q)``, computed exactly enough,
and its ``e`` is ``x - (a c + b)``). The search itself counts rows rescored as it goes
(``topk_counted``), shown for the stored (symmetric) codes. Run:

    .venv/bin/python benchmarks/compact_scale_offset.py
"""

from __future__ import annotations

import statistics

import numpy as np
from corpus import corpus

from docqa.embed import HashingEmbedder
from docqa.search import CompactMatrix, canonical_scores

K = 10
N_QUERIES = 50


def _error(x: np.ndarray, offset: bool) -> np.ndarray:
    """Reconstruction error ``e`` of float64 rows coded symmetrically or with an offset."""
    if offset:
        lo, hi = x.min(axis=1), x.max(axis=1)
        a = np.where(hi > lo, (hi - lo) / 254.0, 1.0)
        b = (hi + lo) / 2.0
    else:
        a = np.where(np.abs(x).max(axis=1) > 0, np.abs(x).max(axis=1) / 127.0, 1.0)
        b = np.zeros(x.shape[0])
    c = np.clip(np.rint((x - b[:, None]) / a[:, None]), -127, 127)
    return x - (a[:, None] * c + b[:, None])


def candidates(m: np.ndarray, qs: np.ndarray, offset: bool) -> list[int]:
    x = m.astype(np.float64)
    e = _error(x, offset)
    w = np.linalg.norm(e, axis=1) + 1e-6 * np.linalg.norm(x, axis=1)
    out = []
    for q in qs:
        exact = canonical_scores(m, q).astype(np.float64)
        half = w * np.linalg.norm(q)
        center = exact + (e @ -q.astype(np.float64))  # the quantised score, as the scan sees it
        lower, upper = center - half, center + half
        kth = np.partition(lower, -K)[-K]
        out.append(int((upper >= kth).sum()))
    return out


def _rows() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(0)
    unit = rng.standard_normal((100_000, 256)).astype(np.float32)
    unit /= np.linalg.norm(unit, axis=1, keepdims=True)
    unit_q = unit[:N_QUERIES] + 0.5 * unit[-N_QUERIES:]
    chunks = corpus(20.0).chunks[:60_000]
    questions = [" ".join(ch.split()[5:12]) for ch in chunks[::1200][:N_QUERIES]]
    hashing = HashingEmbedder(256)
    kinds = {
        "random unit rows 100k x 256": (unit, unit_q.astype(np.float32)),
        "hashing-256, 60k English chunks": (
            hashing.embed(chunks),
            hashing.embed(questions, query=True),
        ),
    }
    return kinds


def main() -> None:
    print(f"candidates (rows whose upper bound reaches the k-th lower bound), k = {K}, medians")
    print(f"{'rows':<36}{'symmetric':>11}{'offset':>9}{'rescored':>10}")
    for name, (m, qs) in _rows().items():
        sym = statistics.median(candidates(m, qs, offset=False))
        off = statistics.median(candidates(m, qs, offset=True))
        _, rescored = CompactMatrix.from_float32(m).topk_counted(qs, K, block_rows=m.shape[0])
        print(f"{name:<36}{sym:>11.0f}{off:>9.0f}{statistics.median(rescored.tolist()):>10.0f}")


if __name__ == "__main__":
    main()
