"""The live rows' BM25 statistics of a delta-updated index: the native ``live_df`` and the
sorted ``merge_counts`` equal their NumPy twins, and bad postings are refused."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from docqa.errors import IndexCorrupt
from docqa.keyword import BM25Index
from docqa.keyword.stats import (
    CorpusStats,
    live_df,
    live_df_reference,
    merge_counts,
    merge_counts_reference,
)


@st.composite
def postings(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A CSR of postings (each term's rows ascending, some terms empty) and a live mask."""
    n_rows = draw(st.integers(1, 40))
    n_terms = draw(st.integers(0, 30))
    per_term = [
        sorted(draw(st.sets(st.integers(0, n_rows - 1), max_size=n_rows))) for _ in range(n_terms)
    ]
    indptr = np.zeros(n_terms + 1, dtype=np.int64)
    indptr[1:] = np.cumsum([len(r) for r in per_term])
    rows = np.array([r for term in per_term for r in term], dtype=np.int32)
    live = np.array(draw(st.lists(st.booleans(), min_size=n_rows, max_size=n_rows)))
    return indptr, rows, live


@settings(max_examples=300, deadline=None)
@given(postings())
def test_live_df_equals_its_numpy_twin(case: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
    indptr, rows, live = case
    got = live_df(indptr, rows, live)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, live_df_reference(indptr, rows, live))
    # by hand: each term's live rows counted
    expect = [int(live[rows[a:b]].sum()) for a, b in itertools.pairwise(indptr)]
    assert got.tolist() == expect


def test_live_df_refuses_a_row_outside_the_mask() -> None:
    indptr = np.array([0, 2, 3], dtype=np.int64)
    live = np.array([True, False, True])
    with pytest.raises(IndexCorrupt, match="posting 2 names a row"):
        live_df(indptr, np.array([0, 1, 3], dtype=np.int32), live)
    with pytest.raises(IndexCorrupt, match="posting 0 names a row"):
        live_df(indptr, np.array([-1, 1, 2], dtype=np.int32), live)


def test_live_df_refuses_term_ranges_outside_the_postings() -> None:
    live = np.array([True, False])
    rows = np.array([0, 1, 1], dtype=np.int32)
    with pytest.raises(IndexCorrupt):  # a range past the end, then back: never read past it
        live_df(np.array([0, 9, 3], dtype=np.int64), rows, live)
    with pytest.raises(IndexCorrupt):  # decreasing
        live_df(np.array([0, 2, 1, 3], dtype=np.int64), rows, live)
    with pytest.raises(ValueError, match="from 0 to the number of postings"):
        live_df(np.array([0, 2], dtype=np.int64), rows, live)


@st.composite
def two_vocabularies(draw: st.DrawFn) -> tuple[np.ndarray, ...]:
    words = st.integers(0, 2**64 - 1) | st.integers(0, 50)  # many shared terms, and extremes
    a = np.array(sorted(draw(st.sets(words, max_size=60))), dtype=np.uint64)
    b = np.array(sorted(draw(st.sets(words, max_size=60))), dtype=np.uint64)
    counts = st.integers(0, 1000)
    df_a = np.array(draw(st.lists(counts, min_size=a.size, max_size=a.size)), dtype=np.int64)
    df_b = np.array(draw(st.lists(counts, min_size=b.size, max_size=b.size)), dtype=np.int64)
    return a, df_a, b, df_b


@settings(max_examples=300, deadline=None)
@given(two_vocabularies())
def test_merge_counts_equals_its_unique_twin(case: tuple[np.ndarray, ...]) -> None:
    got_terms, got_df = merge_counts(*case)
    want_terms, want_df = merge_counts_reference(*case)
    assert got_terms.dtype == np.uint64 and got_df.dtype == np.int64
    np.testing.assert_array_equal(got_terms, want_terms)
    np.testing.assert_array_equal(got_df, want_df)


def test_of_live_is_of_over_the_live_rows_alone() -> None:
    texts = ["loan periods are three weeks", "renew loans online", "fines for late books",
             "three renewals at most", "late fees waived"]  # fmt: skip
    base = BM25Index.from_texts(texts[:3])
    delta = BM25Index.from_texts(texts[3:])
    parts = [
        (base.to_arrays(), np.array([True, False, True])),
        (delta.to_arrays(), np.array([True, True])),
    ]
    got = CorpusStats.of_live(parts)
    want = CorpusStats.of([BM25Index.from_texts([texts[0], texts[2], texts[3], texts[4]])])
    assert (got.n_docs, got.total_length) == (want.n_docs, want.total_length)
    np.testing.assert_array_equal(got.vocab, want.vocab)
    np.testing.assert_array_equal(got.df, want.df)
