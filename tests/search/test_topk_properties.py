"""Property tests: the Numba top-k equals the NumPy reference exactly, in every configuration."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from docqa.search import canonical_scores, topk, topk_reference
from docqa.search.api import BATCH_MIN

KINDS = ("ints", "floats", "near_ties", "zeros")


def make_matrix(kind: str, n: int, d: int, rng: np.random.Generator) -> np.ndarray:
    """Tie-heavy or near-tie data: small integers, duplicated rows, all-zero rows."""
    if kind == "ints":
        m = rng.integers(-2, 3, size=(n, d)).astype(np.float32)
    elif kind == "floats":
        m = rng.standard_normal((n, d)).astype(np.float32)
    elif kind == "near_ties":
        base = rng.standard_normal(d).astype(np.float32)
        m = (base + rng.standard_normal((n, d)) * 1e-6).astype(np.float32)
    else:
        m = np.zeros((n, d), dtype=np.float32)
    if n > 2:
        dup = rng.integers(0, n, size=n // 3)
        m[dup] = m[rng.integers(0, n)]
        m[rng.integers(0, n, size=n // 5)] = 0.0
    return m


@st.composite
def problems(draw: st.DrawFn) -> dict:
    kind = draw(st.sampled_from(KINDS))
    n = draw(st.integers(0, 80))
    d = draw(st.integers(1, 40))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    m = make_matrix(kind, n, d, rng)
    nq = draw(st.sampled_from([1, 2, BATCH_MIN, BATCH_MIN + 3]))
    qs = make_matrix(draw(st.sampled_from(KINDS)), nq, d, rng)
    if draw(st.booleans()) and n:
        qs[0] = m[rng.integers(0, n)]
    mask_kind = draw(st.sampled_from(["none", "bool", "ids"]))
    mask = None
    if mask_kind == "bool":
        mask = rng.random(n) < 0.5
    elif mask_kind == "ids":
        mask = (
            rng.integers(0, max(n, 1), size=rng.integers(0, n + 1)) if n else np.zeros(0, np.int64)
        )
    return {
        "m": m,
        "qs": qs,
        "k": draw(st.integers(0, n + 3)),
        "mask": mask,
        "n_threads": draw(st.sampled_from([None, 1, 2])),
        "block_rows": draw(st.sampled_from([None, 1, 3, 7, 64])),
    }


def assert_same(a, b) -> None:
    np.testing.assert_array_equal(a.ids, b.ids)
    np.testing.assert_array_equal(a.scores, b.scores)
    assert a.scores.dtype == np.float32 and a.ids.dtype == np.int64


def fast(p: dict):
    """The fast path on a drawn problem, with its thread count and block size."""
    return topk(
        p["m"],
        p["qs"],
        p["k"],
        mask=p["mask"],
        n_threads=p["n_threads"],
        block_rows=p["block_rows"],
    )


@settings(max_examples=150)
@given(problems())
def test_equals_reference(p: dict) -> None:
    got = fast(p)
    assert_same(got, topk_reference(p["m"], p["qs"], p["k"], mask=p["mask"]))


@settings(max_examples=60)
@given(problems())
def test_batch_equals_one_by_one_and_any_configuration(p: dict) -> None:
    batch = fast(p)
    for i, q in enumerate(p["qs"]):
        for threads, rows in ((1, None), (2, 5)):
            alone = topk(p["m"], q, p["k"], mask=p["mask"], n_threads=threads, block_rows=rows)
            np.testing.assert_array_equal(alone.ids[0], batch.ids[i])
            np.testing.assert_array_equal(alone.scores[0], batch.scores[i])


def test_large_batch_near_ties_across_many_blocks() -> None:
    """Near-equal scores that sgemm may misorder: the filter must still give the exact answer."""
    rng = np.random.default_rng(7)
    m = make_matrix("near_ties", 3000, 96, rng)
    qs = np.vstack([m[:20], rng.standard_normal((20, 96)).astype(np.float32)])
    want = topk_reference(m, qs, 25)
    for rows in (None, 100, 1000):
        assert_same(topk(m, qs, 25, block_rows=rows, n_threads=2), want)
    assert_same(
        topk(m, qs, 25, mask=np.arange(0, 3000, 2), block_rows=128),
        topk_reference(m, qs, 25, mask=np.arange(0, 3000, 2)),
    )


@settings(max_examples=50)
@given(st.integers(1, 300), st.integers(0, 2**32 - 1))
def test_canonical_scores_are_accurate(d: int, seed: int) -> None:
    """Canonical scores: within 1e-6 of the exact dot product of unit vectors and within the
    rounding bound of their float32 lanes (each product passes through at most
    ceil(d / 16) + 5 roundings), and of sgemm within the bound the batch filter relies on."""
    rng = np.random.default_rng(seed)
    m = rng.standard_normal((50, d))
    m = (m / np.linalg.norm(m, axis=1, keepdims=True)).astype(np.float32)
    q = m[0] * np.float32(0.5) + m[1] * np.float32(0.5)
    exact = m.astype(np.float64) @ q.astype(np.float64)
    canon = canonical_scores(m, q)
    assert np.abs(canon - exact).max() <= 1e-6
    magnitude = np.abs(m.astype(np.float64)) @ np.abs(q.astype(np.float64))
    steps = -(-d // 16) + 5
    lanes_bound = steps * 2.0**-24 / (1 - steps * 2.0**-24) * magnitude
    assert np.all(np.abs(canon - exact) <= lanes_bound)
    gamma = d * 2.0**-24 / (1 - d * 2.0**-24)
    bound = 2 * gamma * magnitude
    assert np.all(np.abs(canon.astype(np.float64) - (m @ q)) <= bound)
    assert np.abs(canon - m @ q).max() <= 1e-6
