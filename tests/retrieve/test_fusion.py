"""Reciprocal-rank fusion: the formula, its tie rules, weights and bad input."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from docqa.errors import InputError
from docqa.retrieve import reciprocal_rank_fusion


def test_scores_follow_the_formula() -> None:
    fused = reciprocal_rank_fusion({"a": [7, 3], "b": [3]}, rrf_k=60)
    assert [f.row for f in fused] == [3, 7]
    assert fused[0].score == pytest.approx(1 / 62 + 1 / 61)
    assert fused[1].score == pytest.approx(1 / 61)
    assert fused[0].ranks == {"a": 2, "b": 1} and fused[0].best_rank == 1


def test_equal_scores_break_by_best_rank_then_row() -> None:
    # rows 5 and 9 earn 1/61 + 1/64 each (swapped lists); 2 and 4 earn 1/62 + 1/63.
    fused = reciprocal_rank_fusion({"a": [9, 2, 4, 5], "b": [5, 4, 2, 9]})
    assert [f.row for f in fused] == [5, 9, 2, 4]
    assert fused[0].score == fused[1].score and fused[2].score == fused[3].score
    # same score and same best rank: the smaller row id first
    fused = reciprocal_rank_fusion({"a": [8], "b": [1]})
    assert [f.row for f in fused] == [1, 8]


def test_sums_are_exact_whatever_the_list_order() -> None:
    # Three lists: a naive left-to-right float sum would depend on which list holds which rank.
    rankings = {"a": [1, 2, 3], "b": [2, 3, 1], "c": [3, 1, 2]}
    fused = reciprocal_rank_fusion(rankings, rrf_k=0.1)
    assert len({f.score for f in fused}) == 1
    assert [f.row for f in fused] == [1, 2, 3]


@given(
    st.lists(st.permutations(list(range(8))), min_size=1, max_size=4),
    st.integers(0, 10),
)
def test_fused_order_is_canonical_and_limited(perms: list[list[int]], limit: int) -> None:
    rankings = {f"r{i}": p[: 3 + i] for i, p in enumerate(perms)}
    fused = reciprocal_rank_fusion(rankings, limit=limit)
    keys = [(-f.score, f.best_rank, f.row) for f in fused]
    assert keys == sorted(keys)
    every = {row for rows in rankings.values() for row in rows}
    assert len(fused) == min(limit, len(every))


def test_weights_change_the_winner() -> None:
    rankings = {"dense": [1, 2], "keyword": [2, 1]}
    assert reciprocal_rank_fusion(rankings, weights={"dense": 2.0, "keyword": 1.0})[0].row == 1
    assert reciprocal_rank_fusion(rankings, weights={"dense": 1.0, "keyword": 2.0})[0].row == 2
    only = reciprocal_rank_fusion(rankings, weights={"dense": 0.0, "keyword": 1.0})
    assert only[0].score == pytest.approx(1 / 61)


def test_bad_input_is_refused() -> None:
    with pytest.raises(InputError, match="twice"):
        reciprocal_rank_fusion({"a": [1, 1]})
    with pytest.raises(InputError, match="no weight"):
        reciprocal_rank_fusion({"a": [1], "b": [2]}, weights={"a": 1.0})
    with pytest.raises(InputError, match="finite"):
        reciprocal_rank_fusion({"a": [1]}, weights={"a": float("nan")})
    with pytest.raises(InputError, match="rrf_k"):
        reciprocal_rank_fusion({"a": [1]}, rrf_k=-1)
    with pytest.raises(InputError, match="limit"):
        reciprocal_rank_fusion({"a": [1]}, limit=-1)
    assert reciprocal_rank_fusion({}) == [] and reciprocal_rank_fusion({"a": []}) == []
