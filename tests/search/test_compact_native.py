"""The native int8 batch kernel: exact integer dots, sound skips, and the same answers as the
float32 search with it and with the portable sgemm path."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_compact import KINDS, assert_same, make_matrix, search_case

from docqa.search import CompactMatrix, canonical_scores, compact_batch, topk
from docqa.search.compact import quantise_queries

COARSE = compact_batch.COARSE
needs_kernel = pytest.mark.skipif(
    compact_batch.native_kernel() is None, reason="the AVX2 kernel does not run on this CPU"
)


@pytest.fixture(autouse=True, scope="module", params=["best", "avx2"])
def tile(request: pytest.FixtureRequest) -> Iterator[str]:
    """Every test once with the CPU's best tile (AVX-512 VNNI here, where it has it) and once
    with the AVX2 tile forced (``compact_batch.ISA_ENV``)."""
    before = os.environ.pop(compact_batch.ISA_ENV, None)
    if request.param == "avx2":
        os.environ[compact_batch.ISA_ENV] = "avx2"
    yield request.param
    os.environ.pop(compact_batch.ISA_ENV, None)
    if before is not None:
        os.environ[compact_batch.ISA_ENV] = before


def cpu_flags() -> set[str]:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return set()
    return set(next((ln for ln in text.splitlines() if ln.startswith("flags")), "").split())


@needs_kernel
def test_the_tile_is_the_cpus_best_unless_avx2_is_asked_for(tile: str) -> None:
    vnni = {"avx512vl", "avx512_vnni"} <= cpu_flags()
    assert compact_batch.kernel_isa() == (2 if vnni and tile == "best" else 1)


@contextmanager
def kernel(name: str) -> Iterator[None]:
    """Search batches with the native kernel or with the portable sgemm path."""
    if name == "native":
        yield
        return
    with mock.patch.object(compact_batch, "native_kernel", lambda: None):
        yield


@needs_kernel
@pytest.mark.parametrize("d", [*range(1, 34), 63, 64, 65, 255, 256, 384, 1000])
def test_native_dots_equal_int64_products(d: int) -> None:
    rng = np.random.default_rng(d)
    n = 16 + d % 16 + 1  # a full panel and a partial one
    nq = 11  # two register tiles of 5 and a partial one
    codes = rng.integers(-128, 128, size=(n, d), dtype=np.int8)
    p7 = rng.integers(-COARSE, COARSE + 1, size=(nq, d)).astype(np.int16)
    codes[0], codes[1], codes[2] = -128, 127, np.where(np.arange(d) % 2, -128, 127)
    p7[0], p7[1], p7[2] = COARSE, -COARSE, np.where(np.arange(d) % 2, -COARSE, COARSE)
    want = codes.astype(np.int64) @ p7.astype(np.int64).T
    np.testing.assert_array_equal(compact_batch.native_dots(codes, p7), want)


@needs_kernel
def test_native_dots_at_the_int32_edge() -> None:
    d = compact_batch.MAX_DIM
    codes = np.full((3, d), -128, dtype=np.int8)
    codes[1] = 127
    p7 = np.full((2, d), COARSE, dtype=np.int16)
    p7[1] = -COARSE
    want = codes.astype(np.int64) @ p7.astype(np.int64).T
    assert np.abs(want).max() < 2**31
    np.testing.assert_array_equal(compact_batch.native_dots(codes, p7), want)


def kept_pairs(cm: CompactMatrix, qs: np.ndarray, floors: np.ndarray) -> np.ndarray:
    """(nq, N) bool: the pairs the kernel keeps against these floors (one call, all rows)."""
    k = compact_batch.native_kernel()
    assert k is not None
    packed, terms = compact_batch.pack_queries(*quantise_queries(qs, top=COARSE))
    terms[:, 4] = floors
    n = len(cm)
    room = compact_batch.PANEL * packed.shape[0] * (n // 16 + 1)
    pq, pp = np.empty(room, np.int32), np.empty(room, np.int32)
    panel = np.empty(16 * packed.shape[1], np.int8)
    tau = np.empty(packed.shape[0], np.float32)
    args = (cm.codes, np.zeros(0, np.int64), False, cm.scale, cm.radius, cm.code_norm)
    isa = compact_batch.kernel_isa()
    reached, count = k.candidates(*args, packed, terms, 0, n, pq, pp, panel, tau, isa)
    assert reached == n
    kept = np.zeros((qs.shape[0], n), dtype=bool)
    kept[pq[:count], pp[:count]] = True
    return kept


@needs_kernel
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("d", [3, 17, 64, 256])
def test_skipped_rows_score_below_the_floor(kind: str, d: int) -> None:
    """Floors set to rows' exact canonical scores (the rounding edge): every row scoring at
    or above a query's floor is kept; the ones skipped all score below it."""
    rng = np.random.default_rng(d)
    m = make_matrix(kind, 300, d, rng)
    qs = np.concatenate([m[:4], make_matrix(kind, 4, d, rng), make_matrix("wide", 3, d, rng)])
    cm = CompactMatrix.from_float32(m)
    scores = np.stack([canonical_scores(m, q) for q in qs]).astype(np.float64)
    order = np.sort(scores, axis=1)[:, ::-1]
    for rank in (0, 9, 150, 299):
        floors = order[:, rank]
        kept = kept_pairs(cm, qs, floors)
        assert kept[scores >= floors[:, None]].all()
    assert kept_pairs(cm, qs, np.full(qs.shape[0], -np.inf)).all()


@st.composite
def batches(draw: st.DrawFn) -> dict:
    n = draw(st.integers(0, 120))
    d = draw(st.integers(1, 70))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    m = make_matrix(draw(st.sampled_from(KINDS)), n, d, rng)
    qs = make_matrix(draw(st.sampled_from(KINDS)), draw(st.integers(8, 23)), d, rng)
    if n:
        qs[rng.integers(0, qs.shape[0], size=3)] = m[rng.integers(0, n, size=3)]
    return search_case(draw, rng, m, qs, (None, 1, 5, 16, 17, 64))


@settings(max_examples=200, deadline=None)
@given(batches(), st.sampled_from(["native", "portable"]))
def test_batches_equal_float32_topk_on_both_paths(p: dict, path: str) -> None:
    want = topk(p["m"], p["qs"], p["k"], mask=p["mask"])
    cm = CompactMatrix.from_float32(p["m"])
    opts = {"mask": p["mask"], "n_threads": p["n_threads"], "block_rows": p["block_rows"]}
    with kernel(path):
        assert_same(cm.topk(p["qs"], p["k"], **opts), want)


@pytest.mark.parametrize("path", ["native", "portable"])
@pytest.mark.parametrize("threads", [1, 2])
def test_a_large_batch_rescores_few_rows(path: str, threads: int) -> None:
    rng = np.random.default_rng(3)
    m = rng.standard_normal((40_000, 96)).astype(np.float32)
    m /= np.linalg.norm(m, axis=1, keepdims=True)
    qs = m[rng.integers(0, 40_000, size=60)] + 0.3 * rng.standard_normal((60, 96)).astype(
        np.float32
    )
    mask = rng.random(40_000) < 0.7
    cm = CompactMatrix.from_float32(m)
    with kernel(path):
        got, rescored = cm.topk_counted(qs, 10, n_threads=threads)
        got_masked = cm.topk(qs, 10, mask=mask, n_threads=threads)
    assert_same(got, topk(m, qs, 10))
    assert_same(got_masked, topk(m, qs, 10, mask=mask))
    assert (rescored >= 10).all() and np.median(rescored) < 300


@pytest.mark.parametrize("path", ["native", "portable"])
def test_near_ties_in_a_batch_stay_exact(path: str) -> None:
    rng = np.random.default_rng(8)
    base = rng.standard_normal(48).astype(np.float32)
    m = np.tile(base, (5000, 1))
    flip = rng.random(m.shape) < 0.05
    m[flip] = np.nextafter(m[flip], np.float32(np.inf))
    qs = np.tile(base, (9, 1))
    qs[4:] = rng.standard_normal((5, 48)).astype(np.float32)
    with kernel(path):
        got, rescored = CompactMatrix.from_float32(m).topk_counted(qs, 10)
    assert_same(got, topk(m, qs, 10))
    assert (rescored[:4] > 1000).all()  # the bound cannot separate them; still exact


@needs_kernel
def test_the_kernel_refuses_inconsistent_buffers() -> None:
    k = compact_batch.native_kernel()
    assert k is not None
    cm = CompactMatrix.from_float32(np.ones((20, 10), np.float32))
    packed, terms = compact_batch.pack_queries(
        *quantise_queries(np.ones((3, 10), np.float32), top=COARSE)
    )
    good = {"panel": np.empty(16 * 16, np.int8), "tau": np.empty(4, np.float32)}
    pairs = (np.empty(64, np.int32), np.empty(64, np.int32))
    rows = (cm.codes, np.zeros(0, np.int64), False, cm.scale, cm.radius, cm.code_norm)
    isa = compact_batch.kernel_isa()
    with pytest.raises(ValueError, match="outside"):
        k.candidates(*rows, packed, terms, 0, 21, *pairs, good["panel"], good["tau"], isa)
    with pytest.raises(ValueError, match="room"):
        k.candidates(*rows, packed, terms, 0, 20, pairs[0][:10], pairs[1][:10], *good.values(),
                     isa)  # fmt: skip
    with pytest.raises(ValueError, match="panel"):
        k.candidates(*rows, packed, terms, 0, 20, *pairs, good["panel"][:100], good["tau"], isa)
    with pytest.raises(ValueError, match="one value per row"):
        k.candidates(*rows[:3], cm.scale[:5], *rows[4:], packed, terms, 0, 20, *pairs,
                     *good.values(), isa)  # fmt: skip
    with pytest.raises(ValueError, match="isa 3 is not run by this CPU"):
        k.candidates(*rows, packed, terms, 0, 20, *pairs, *good.values(), 3)
