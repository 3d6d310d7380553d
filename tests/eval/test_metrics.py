import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from docqa.eval import bootstrap_interval, recall_at, reciprocal_rank


def test_recall_counts_distinct_relevant_sections():
    ranked = ["a#x", "a#x", "b#y", "c#z"]
    assert recall_at(ranked, ["a#x", "c#z"], 1) == 0.5
    assert recall_at(ranked, ["a#x", "c#z"], 3) == 0.5
    assert recall_at(ranked, ["a#x", "c#z"], 4) == 1.0
    assert recall_at([], ["a#x"], 5) == 0.0


def test_recall_rejects_unanswerable_and_bad_k():
    with pytest.raises(ValueError, match="no relevant"):
        recall_at(["a"], [], 1)
    with pytest.raises(ValueError, match="k must be an int >= 1, got 0"):
        recall_at(["a"], ["a"], 0)


def test_reciprocal_rank_uses_first_relevant_within_depth():
    assert reciprocal_rank(["x", "y", "a"], ["a", "y"], 10) == 0.5
    assert reciprocal_rank(["x", "y", "a"], ["a"], 2) == 0.0
    assert reciprocal_rank(["a"], ["a"], 1) == 1.0


@given(st.lists(st.floats(0, 1), min_size=1, max_size=50))
def test_bootstrap_interval_brackets_values_and_is_deterministic(values):
    low, high = bootstrap_interval(values, rounds=200)
    assert min(values) - 1e-12 <= low <= high <= max(values) + 1e-12
    assert (low, high) == bootstrap_interval(values, rounds=200)


def test_bootstrap_of_constant_is_that_constant_and_empty_is_nan():
    assert bootstrap_interval([0.25] * 10) == pytest.approx((0.25, 0.25))
    assert all(math.isnan(x) for x in bootstrap_interval([]))
