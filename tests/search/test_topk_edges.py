"""Edge cases and argument errors of docqa.search.topk."""

from __future__ import annotations

from pathlib import Path

import numba
import numpy as np
import pytest

from docqa.errors import DimensionMismatch, InputError
from docqa.search import kernels, topk, topk_reference
from docqa.types import TopK


@pytest.fixture
def data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    return rng.integers(-3, 4, size=(40, 12)).astype(np.float32), rng.standard_normal((10, 12))


def test_result_is_2d_topk_and_unpacks(data) -> None:
    m, qs = data
    res = topk(m, qs[0], 5)
    assert isinstance(res, TopK)
    scores, ids = res
    assert scores.shape == ids.shape == (1, 5)
    assert scores.dtype == np.float32 and ids.dtype == np.int64


@pytest.mark.parametrize("nq", [1, 10])
def test_k_larger_than_n_is_clamped_to_the_rows(data, nq: int) -> None:
    m, qs = data
    scores, ids = topk(m[:3], qs[:nq], 6)
    assert ids.shape == scores.shape == (nq, 3)
    assert sorted(ids[0]) == [0, 1, 2]
    huge = topk(m[:3], qs[:nq], 10**30)
    np.testing.assert_array_equal(huge.ids, ids)
    masked = topk(m[:3], qs[:nq], 6, mask=np.array([True, False, True]))
    assert masked.ids.shape == (nq, 3) and (masked.ids[:, 2] == -1).all()
    assert np.isneginf(masked.scores[:, 2]).all()


@pytest.mark.parametrize("nq", [1, 10])
def test_k_zero_and_empty_matrix(data, nq: int) -> None:
    m, qs = data
    assert topk(m, qs[:nq], 0).ids.shape == (nq, 0)
    scores, ids = topk(np.zeros((0, 12), np.float32), qs[:nq], 3)
    assert scores.shape == ids.shape == (nq, 0)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_query_raises(data, bad: float) -> None:
    m, qs = data
    qs = qs.copy()
    qs[4, 2] = bad
    with pytest.raises(ValueError, match="query 4"):
        topk(m, qs, 3)


def test_dimension_mismatch_names_both_dims(data) -> None:
    m, qs = data
    with pytest.raises(DimensionMismatch, match=r"dimension 11 .* dimension 12"):
        topk(m, qs[:, :11], 3)


def test_float64_and_non_contiguous_inputs_are_converted(data) -> None:
    m, qs = data
    want = topk(m, qs.astype(np.float32), 4)
    wide = np.zeros((40, 24), np.float64)
    wide[:, ::2] = m
    got = topk(wide[:, ::2], np.asfortranarray(qs), 4)
    np.testing.assert_array_equal(got.ids, want.ids)
    np.testing.assert_array_equal(got.scores, want.scores)


@pytest.mark.parametrize("nq", [1, 10])
def test_read_only_memmap_is_accepted(data, tmp_path: Path, nq: int) -> None:
    m, qs = data
    np.save(tmp_path / "m.npy", m)
    mm = np.load(tmp_path / "m.npy", mmap_mode="r")
    assert not mm.flags.writeable
    got = topk(mm, qs[:nq], 7, block_rows=8)
    np.testing.assert_array_equal(got.ids, topk_reference(m, qs[:nq], 7).ids)


def test_mask_keeps_original_ids(data) -> None:
    m, qs = data
    allowed = np.array([30, 2, 17, 2])
    got = topk(m, qs, 10, mask=allowed)
    assert set(got.ids[got.ids >= 0].tolist()) <= {2, 17, 30}
    assert (got.ids[:, 3:] == -1).all()
    as_bool = np.zeros(40, bool)
    as_bool[[2, 17, 30]] = True
    np.testing.assert_array_equal(topk(m, qs, 10, mask=as_bool).ids, got.ids)


@pytest.mark.parametrize(
    ("mask", "message"),
    [
        (np.ones(39, bool), r"shape \(40,\)"),
        (np.array([0, 40]), "row id 40 is outside 0..39"),
        (np.array([-1]), "row id -1"),
        (np.array([0.5]), "bool array of length 40"),
        (np.ones((40, 1), bool), r"shape \(40,\)"),
    ],
)
def test_bad_masks(data, mask: np.ndarray, message: str) -> None:
    m, qs = data
    with pytest.raises(InputError, match=message):
        topk(m, qs, 3, mask=mask)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"k": -1}, "k must be an int >= 0"),
        ({"k": True}, "k must be an int, got"),
        ({"k": 2.5}, "k must be an int, got"),
        ({"n_threads": 0}, "n_threads must be an int in \\[1, "),
        ({"n_threads": 10_000}, r"n_threads must be an int in \[1, \d+\], got 10000"),
        ({"block_rows": 0}, "block_rows must be an int >= 1"),
    ],
)
def test_bad_arguments(data, kwargs: dict, message: str) -> None:
    m, qs = data
    args = {"k": 3} | kwargs
    with pytest.raises(InputError, match=message):
        topk(m, qs, **args)


def test_bad_shapes(data) -> None:
    m, qs = data
    with pytest.raises(InputError, match="2-D"):
        topk(m[0], qs, 3)
    with pytest.raises(InputError, match="queries must be"):
        topk(m, qs[None], 3)


@pytest.mark.parametrize("nq", [1, 10])
def test_thread_setting_is_restored_even_on_error(data, monkeypatch, nq: int) -> None:
    m, qs = data
    before = numba.get_num_threads()
    topk(m, qs[:nq], 3, n_threads=1)
    assert numba.get_num_threads() == before

    def boom(*args: object) -> None:
        assert numba.get_num_threads() == 1
        raise RuntimeError("kernel failed")

    def boom_in_worker(*args: object) -> None:  # runs in the batch path's own worker thread
        raise RuntimeError("kernel failed")

    monkeypatch.setattr(kernels, "scan_serial", boom)
    monkeypatch.setattr(kernels, "filter_rescore", boom_in_worker)
    with pytest.raises(RuntimeError, match="kernel failed"):
        topk(m, qs[:nq], 3, n_threads=1)
    assert numba.get_num_threads() == before
