"""The canonical score's summation order: kernel, NumPy twin and a plain-Python spec agree bit
for bit (float32 bit patterns, so even the sign of zero counts)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from docqa.search import canonical_scores
from docqa.search.kernels import canonical_dot
from docqa.search.lanes import LANES


def spec_score(row: np.ndarray, q: np.ndarray) -> np.float32:
    """The order written out, one float32 scalar operation at a time: 16 lanes over
    zero-padded chunks, then the lane tree."""
    d = row.shape[0]
    zero = np.float32(0.0)
    acc = [zero] * LANES
    for t in range(-(-d // LANES)):
        for lane in range(LANES):
            i = t * LANES + lane
            acc[lane] = acc[lane] + (np.float32(row[i]) * np.float32(q[i]) if i < d else zero)
    w = LANES
    while w > 1:
        w //= 2
        for i in range(w):
            acc[i] = acc[i] + acc[i + w]
    return acc[0]


@njit
def kernel_scores(matrix: np.ndarray, q: np.ndarray) -> np.ndarray:
    out = np.empty(matrix.shape[0], dtype=np.float32)
    for r in range(matrix.shape[0]):
        out[r] = canonical_dot(matrix[r], q, matrix.shape[1])
    return out


def bits(a: np.ndarray) -> np.ndarray:
    return np.asarray(a, dtype=np.float32).view(np.uint32)


@settings(max_examples=80)
@given(st.integers(1, 70), st.integers(0, 2**32 - 1), st.sampled_from(["normal", "wide", "ints"]))
def test_kernel_reference_and_spec_agree_bit_for_bit(d: int, seed: int, kind: str) -> None:
    rng = np.random.default_rng(seed)
    if kind == "ints":
        m = rng.integers(-3, 4, size=(12, d)).astype(np.float32)
    else:
        scale = 10.0 ** rng.integers(-15, 15, size=(12, d)) if kind == "wide" else 1.0
        m = (rng.standard_normal((12, d)) * scale).astype(np.float32)
    m[0] = -0.0
    q = m[1] * np.float32(-0.5)
    want = canonical_scores(m, q)
    np.testing.assert_array_equal(bits(kernel_scores(m, q)), bits(want))
    np.testing.assert_array_equal(bits([spec_score(r, q) for r in m]), bits(want))


@pytest.mark.parametrize("d", [1, 15, 16, 17, 256, 300])
def test_order_is_lanes_not_left_to_right(d: int) -> None:
    """Cancellation exposes the order: 1e20 and -1e20 meet in lane 0 only after the lane sums,
    so the small terms survive where a left-to-right sum would lose them (d >= 17)."""
    row = np.ones(d, dtype=np.float32)
    q = np.zeros(d, dtype=np.float32)
    q[0] = 1e20
    q[1:] = 1.0
    if d > LANES:
        q[LANES] = -1e20
    got = canonical_scores(row[None, :], q)[0]
    assert got == spec_score(row, q)
    assert bits(kernel_scores(row[None, :], q))[0] == bits([got])[0]
    if d > LANES:
        assert got == np.float32(d - 2)
