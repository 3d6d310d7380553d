"""The int8 search equals the float32 search bit for bit; its score bounds hold on the edges."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from docqa.errors import IndexCorrupt, InputError
from docqa.search import CompactMatrix, canonical_scores, topk
from docqa.search.api import BATCH_MIN
from docqa.search.compact_kernels import exact_dots

KINDS = ("ints", "floats", "near_ties", "zeros", "wide", "half_steps")


def make_matrix(kind: str, n: int, d: int, rng: np.random.Generator) -> np.ndarray:
    """Tie-heavy, near-tie and rounding-edge rows (duplicates and zero rows mixed in)."""
    if kind == "ints":
        m = rng.integers(-2, 3, size=(n, d)).astype(np.float32)
    elif kind == "floats":
        m = rng.standard_normal((n, d)).astype(np.float32)
    elif kind == "near_ties":
        base = rng.standard_normal(d).astype(np.float32)
        m = (base + rng.standard_normal((n, d)) * 1e-6).astype(np.float32)
    elif kind == "wide":  # one large element per row and tiny (some subnormal) others
        m = (rng.standard_normal((n, d)) * 10.0 ** rng.integers(-44, 3, size=(n, d))).astype(
            np.float32
        )
    elif kind == "half_steps":  # every element half-way between two codes: the largest error
        m = ((rng.integers(-120, 120, size=(n, d)) + 0.5) / 127.0).astype(np.float32)
        m[:, 0] = 1.0
    else:
        m = np.zeros((n, d), dtype=np.float32)
    if n > 2:
        m[rng.integers(0, n, size=n // 3)] = m[rng.integers(0, n)]
        m[rng.integers(0, n, size=n // 5)] = 0.0
    return m


def assert_same(got, want) -> None:
    np.testing.assert_array_equal(got.ids, want.ids)
    np.testing.assert_array_equal(got.scores.view(np.int32), want.scores.view(np.int32))


def search_case(
    draw: st.DrawFn,
    rng: np.random.Generator,
    m: np.ndarray,
    qs: np.ndarray,
    block_rows: tuple[int | None, ...],
) -> dict:
    """``topk`` arguments over ``m`` and ``qs``: a drawn k (past the row count too), mask,
    thread count and block size."""
    n = m.shape[0]
    return {
        "m": m,
        "qs": qs,
        "k": draw(st.integers(0, n + 3)),
        "mask": draw_mask(draw, rng, n),
        "n_threads": draw(st.sampled_from([None, 1, 2])),
        "block_rows": draw(st.sampled_from(block_rows)),
    }


def draw_mask(draw: st.DrawFn, rng: np.random.Generator, n: int) -> np.ndarray | None:
    """No mask, a bool mask over ``n`` rows, or row ids (repeats allowed)."""
    kind = draw(st.sampled_from(["none", "bool", "ids"]))
    if kind == "bool":
        return rng.random(n) < 0.5
    if kind == "ids":
        return rng.integers(0, n, size=rng.integers(0, n + 1)) if n else np.zeros(0, np.int64)
    return None


@st.composite
def problems(draw: st.DrawFn) -> dict:
    n = draw(st.integers(0, 90))
    d = draw(st.integers(1, 70))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    m = make_matrix(draw(st.sampled_from(KINDS)), n, d, rng)
    nq = draw(st.sampled_from([1, 2, BATCH_MIN, BATCH_MIN + 3]))
    qs = make_matrix(draw(st.sampled_from(KINDS)), nq, d, rng)
    if draw(st.booleans()) and n:
        qs[0] = m[rng.integers(0, n)]
    return search_case(draw, rng, m, qs, (None, 1, 3, 7, 64))


@settings(max_examples=300, deadline=None)
@given(problems())
def test_int8_search_equals_float32_topk(p: dict) -> None:
    want = topk(p["m"], p["qs"], p["k"], mask=p["mask"])
    cm = CompactMatrix.from_float32(p["m"])
    opts = {"mask": p["mask"], "n_threads": p["n_threads"], "block_rows": p["block_rows"]}
    assert_same(cm.topk(p["qs"], p["k"], **opts), want)
    assert_same(topk(cm, p["qs"], p["k"], **opts), want)


finite32 = st.floats(-(2.0**60), 2.0**60, width=32, allow_subnormal=True)  # ||x|| ||q|| < 2**126


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_bounds_hold_for_any_finite_rows_and_query(data: st.DataObject) -> None:
    d = data.draw(st.integers(1, 48))
    m = data.draw(hnp.arrays(np.float32, (data.draw(st.integers(1, 12)), d), elements=finite32))
    q = data.draw(hnp.arrays(np.float32, (d,), elements=finite32))
    lo, hi = CompactMatrix.from_float32(m).score_bounds(q)
    s = canonical_scores(m, q).astype(np.float64)
    assert (lo <= s).all() and (s <= hi).all()


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("d", [3, 31, 32, 33, 256, 384])
def test_bounds_hold_on_rounding_edges(kind: str, d: int) -> None:
    rng = np.random.default_rng(d)
    m = make_matrix(kind, 400, d, rng)
    cm = CompactMatrix.from_float32(m)
    queries = [m[7], make_matrix("half_steps", 1, d, rng)[0], make_matrix("wide", 1, d, rng)[0]]
    queries.append(np.nextafter(m[3], np.float32(np.inf)))  # one ulp off a stored row
    for q in queries:
        lo, hi = cm.score_bounds(q)
        s = canonical_scores(m, q).astype(np.float64)
        assert (lo <= s).all() and (s <= hi).all()
        assert (hi - lo >= 0).all()


@pytest.mark.parametrize("d", [1, 5, 32, 33, 95, 256])
def test_integer_dot_is_exact(d: int) -> None:
    rng = np.random.default_rng(d)
    codes = rng.integers(-127, 128, size=(50, d), dtype=np.int8)
    p = rng.integers(-32767, 32768, size=d).astype(np.int16)
    np.testing.assert_array_equal(exact_dots(codes, p), codes.astype(np.int64) @ p.astype(np.int64))


@pytest.mark.parametrize("nq", [1, BATCH_MIN])
def test_thousands_of_near_ties_stay_exact(nq: int) -> None:
    rng = np.random.default_rng(5)
    base = rng.standard_normal(64).astype(np.float32)
    m = np.tile(base, (6000, 1))
    flip = rng.random(m.shape) < 0.05  # one-ulp changes: scores within the int8 bound
    m[flip] = np.nextafter(m[flip], np.float32(np.inf))
    qs = np.tile(base, (nq, 1))
    got, rescored = CompactMatrix.from_float32(m).topk_counted(qs, 10, block_rows=2048)
    assert_same(got, topk(m, qs, 10))
    assert (rescored > 1000).all()  # the bound cannot separate them; exactness holds anyway


def test_random_unit_rows_rescore_few() -> None:
    rng = np.random.default_rng(2)
    m = rng.standard_normal((20_000, 64)).astype(np.float32)
    m /= np.linalg.norm(m, axis=1, keepdims=True)
    qs = m[:BATCH_MIN] + 0.5 * rng.standard_normal((BATCH_MIN, 64)).astype(np.float32)
    got, rescored = CompactMatrix.from_float32(m).topk_counted(qs, 10, block_rows=20_000)
    assert_same(got, topk(m, qs, 10))
    assert (rescored < 1000).all() and (rescored >= 10).all()


def test_overflow_guard_searches_the_float32_rows() -> None:
    rng = np.random.default_rng(4)
    m = (rng.standard_normal((30, 8)) * 1e19).astype(np.float32)
    qs = (rng.standard_normal((2, 8)) * 1e19).astype(np.float32)
    got, rescored = CompactMatrix.from_float32(m).topk_counted(qs, 5)
    assert_same(got, topk(m, qs, 5))
    assert (rescored == 30).all()


def test_arrays_round_trip_through_read_only_memmaps(tmp_path: Path) -> None:
    rng = np.random.default_rng(6)
    m = rng.standard_normal((500, 40)).astype(np.float32)
    cm = CompactMatrix.from_float32(m)
    for name, a in {"vectors": m, **cm.to_arrays()}.items():
        np.save(tmp_path / f"{name}.npy", a)
    maps = {p.stem: np.load(p, mmap_mode="r") for p in tmp_path.glob("*.npy")}
    loaded = CompactMatrix.from_arrays(maps.pop("vectors"), maps)
    qs = rng.standard_normal((BATCH_MIN + 1, 40)).astype(np.float32)
    assert_same(loaded.topk(qs, 7), topk(m, qs, 7))
    assert_same(loaded.topk(qs[0], 7, block_rows=50), topk(m, qs[0], 7))
    assert loaded.scanned_bytes == 500 * 40 + 3 * 4 * 500


def test_bad_arrays_and_rows_are_named() -> None:
    m = np.ones((4, 3), np.float32)
    arrays = CompactMatrix.from_float32(m).to_arrays()
    with pytest.raises(IndexCorrupt, match="'int8_radius' is missing"):
        CompactMatrix.from_arrays(m, {k: v for k, v in arrays.items() if k != "int8_radius"})
    with pytest.raises(IndexCorrupt, match="'int8_codes' is int16"):
        CompactMatrix.from_arrays(m, arrays | {"int8_codes": arrays["int8_codes"].astype(np.int16)})
    m[2, 1] = np.nan
    with pytest.raises(InputError, match="row 2 contains NaN"):
        CompactMatrix.from_float32(m)
    with pytest.raises(InputError, match="one query"):
        CompactMatrix.from_float32(np.ones((4, 3), np.float32)).score_bounds(np.ones((2, 3)))


@pytest.mark.parametrize("name", ["int8_scale", "int8_radius", "int8_code_norm"])
@pytest.mark.parametrize("bad", [np.nan, -np.inf, np.inf, -1.0])
def test_bound_terms_that_are_not_finite_and_non_negative_are_refused(
    name: str, bad: float
) -> None:
    m = np.random.default_rng(8).standard_normal((300, 16)).astype(np.float32)
    arrays = CompactMatrix.from_float32(m).to_arrays()
    arrays[name] = arrays[name].copy()
    arrays[name][123] = bad
    with pytest.raises(IndexCorrupt, match=rf"'{name}' row 123 holds .*`docqa verify`"):
        CompactMatrix.from_arrays(m, arrays)
