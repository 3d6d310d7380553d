"""Convex fusion of min-max normalised scores: the formula, ties, weights, bad input, and the
hybrid retriever's use of it (``fusion="convex"``)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from docqa.errors import InputError
from docqa.retrieve.fusion import convex_fusion
from docqa.retrieve.retrievers import DENSE, KEYWORD, HybridRetriever
from docqa.types import Component


def test_scores_follow_the_formula() -> None:
    fused = convex_fusion(
        {"d": [(1, 0.9), (2, 0.5), (3, 0.4)], "k": [(3, 20.0), (1, 10.0), (4, 0.0)]}
    )
    by = {f.row: f.score for f in fused}
    assert by[1] == pytest.approx(0.5 * 1.0 + 0.5 * 0.5)
    assert by[3] == pytest.approx(0.5 * 0.0 + 0.5 * 1.0)
    assert by[2] == pytest.approx(0.5 * 0.2)
    assert by[4] == 0.0
    assert [f.row for f in fused] == [1, 3, 2, 4]
    assert fused[0].ranks == {"d": 1, "k": 2} and fused[0].best_rank == 1


def test_weights_are_scaled_and_one_list_alone_keeps_its_order() -> None:
    lists = {"d": [(5, 0.3), (6, 0.2)], "k": [(6, 3.0), (5, 1.0)]}
    only_k = convex_fusion(lists, weights={"d": 0.0, "k": 2.0})
    assert [f.row for f in only_k] == [6, 5] and only_k[0].score == pytest.approx(1.0)
    with pytest.raises(InputError, match="at least one weight"):
        convex_fusion(lists, weights={"d": 0.0, "k": 0.0})
    with pytest.raises(InputError, match="no weight"):
        convex_fusion(lists, weights={"d": 1.0})


def test_ties_break_by_best_rank_then_row() -> None:
    fused = convex_fusion({"a": [(9, 1.0), (2, 0.0)], "b": [(2, 5.0), (9, 0.0)]})
    assert fused[0].score == fused[1].score == 0.5 and [f.row for f in fused] == [2, 9]
    flat = convex_fusion({"a": [(4, 0.7), (3, 0.7)]})  # all equal: all normalise to 1
    assert [f.row for f in flat] == [4, 3] and flat[0].score == 1.0


def test_bad_input() -> None:
    with pytest.raises(InputError, match="appears twice"):
        convex_fusion({"a": [(1, 1.0), (1, 0.5)]})
    with pytest.raises(InputError, match="not finite"):
        convex_fusion({"a": [(1, math.inf)]})
    with pytest.raises(InputError, match="limit"):
        convex_fusion({"a": [(1, 1.0)]}, limit=-1)
    assert convex_fusion({"a": [], "b": []}) == []


pairs = st.lists(st.tuples(st.integers(0, 30), st.floats(-5, 5, allow_nan=False)), max_size=12).map(
    lambda xs: sorted({r: s for r, s in xs}.items(), key=lambda p: -p[1])
)


@given(pairs, pairs, st.integers(0, 20))
def test_order_is_canonical_and_bounded(
    a: list[tuple[int, float]], b: list[tuple[int, float]], limit: int
) -> None:
    fused = convex_fusion({"a": a, "b": b}, limit=limit)
    assert len(fused) == min(limit, len({r for r, _ in a} | {r for r, _ in b}))
    keys = [(-f.score, f.best_rank, f.row) for f in fused]
    assert keys == sorted(keys)
    assert all(-1e-12 <= f.score <= 1 + 1e-12 for f in fused)
    swapped = convex_fusion({"b": b, "a": a}, limit=limit)
    assert [(f.row, f.score) for f in swapped] == [(f.row, f.score) for f in fused]


def test_hybrid_convex_is_over_a_fixed_depth(fake: type) -> None:
    fake_dense = fake("d", [(0, 0.9), (1, 0.8), (2, 0.7)])
    fake_keyword = fake("k", [(2, 12.0), (5, 9.0), (0, 1.0)])
    hybrid = HybridRetriever(fake_dense, fake_keyword, fusion="convex")
    hits = hybrid.search("q", 2)
    assert fake_dense.calls[0][1] == 50 and fake_keyword.calls[0][1] == 50
    # 0: 0.5*1 + 0.5*0 ; 2: 0.5*0 + 0.5*1 ; tie -> best rank 1 both -> row id
    assert [h.row for h in hits] == [0, 2] and hits[0].score == pytest.approx(0.5)
    assert hits[1].components == {DENSE: Component(0.7, 3), KEYWORD: Component(12.0, 1)}
    with pytest.raises(InputError, match="unknown fusion"):
        HybridRetriever(fake_dense, fake_keyword, fusion="max")
