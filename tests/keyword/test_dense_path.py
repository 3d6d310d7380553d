"""The dense scoring path (``docqa.keyword.dense``) against the row-tracking path, bit for bit.

The paths add the same weights in the same order, so scores are equal as float32 bits, not
only close; the dense path adds the longest terms as dense columns of weights, and must give
the same bits with those columns as without them.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from test_bm25 import cases, scoring_path
from test_single_question import zipf_corpus

from docqa.keyword import BM25Index, bm25
from docqa.types import TopK


@contextmanager
def column_share(share: int) -> Iterator[None]:
    before = bm25.COLUMN_SHARE
    bm25.COLUMN_SHARE = share
    try:
        yield
    finally:
        bm25.COLUMN_SHARE = before


def every_path(texts: list[str], params: dict) -> list[BM25Index]:
    """The index with the default columns, and one without any (COLUMN_SHARE 0)."""
    with column_share(0):  # the columns are made on first use: inside the context
        without = BM25Index.from_texts(texts, **params)
        assert without.columns.shape == (0, len(texts))
    return [BM25Index.from_texts(texts, **params), without]


def assert_bits_equal(got: TopK, want: TopK) -> None:
    np.testing.assert_array_equal(got.ids, want.ids)
    np.testing.assert_array_equal(got.scores.view(np.uint32), want.scores.view(np.uint32))


def search_every_way(
    indexes: list[BM25Index], queries: list[str], k: int, mask: np.ndarray | None
) -> Iterator[TopK]:
    for index in indexes:
        for share in (0, bm25.DENSE_SHARE, 1 << 40):
            with scoring_path(share):
                yield index.search(queries, k, mask=mask)
                alone = [index.search([query], k, mask=mask) for query in queries]
                yield TopK(np.vstack([a.scores for a in alone]), np.vstack([a.ids for a in alone]))


@settings(max_examples=50)
@given(case=cases())
def test_scores_are_the_same_bits_on_every_path(case: dict) -> None:
    indexes = every_path(case["corpus"], case["params"])
    queries = [*case["queries"], "cat dog the policies"]
    results = list(search_every_way(indexes, queries, case["k"], case["mask"]))
    for got in results[1:]:
        assert_bits_equal(got, results[0])


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.sampled_from([1, 10, 50]))
def test_long_postings_the_same_bits_with_and_without_columns(seed: int, k: int) -> None:
    corpus, queries = zipf_corpus(seed, rows=600)
    indexes = every_path(corpus, {})
    assert indexes[0].columns.shape[0] >= 1  # "w1" and friends are in half the rows or more
    mask = np.random.default_rng(seed).random(len(corpus)) < 0.6
    for allowed in (None, mask):
        results = list(search_every_way(indexes, queries, k, allowed))
        for got in results[1:]:
            assert_bits_equal(got, results[0])


def test_columns_hold_each_long_terms_weights() -> None:
    texts = ["common rare", "common", "common zebra", "zebra"]
    index = BM25Index.from_texts(texts)
    df = np.diff(index.indptr)
    assert sorted(df[index.column_of >= 0].tolist()) == [2, 3]  # "common", "zebra": >= 4 / 2
    for t in np.flatnonzero(index.column_of >= 0):
        column = index.columns[index.column_of[t]]
        postings = slice(index.indptr[t], index.indptr[t + 1])
        want = np.zeros(len(texts))
        want[index.rows[postings]] = index.weights[postings]
        np.testing.assert_array_equal(column, want)
