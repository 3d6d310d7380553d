"""One question at a time (the service's case): the serial path with pooled work arrays equals
the plain-Python reference and the batch path, across reuse, growth and concurrent callers."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from test_bm25 import PATHS, assert_same, cases, scoring_path

from docqa.keyword import BM25Index
from docqa.keyword.reference import ReferenceBM25


@PATHS
@settings(max_examples=60)
@given(case=cases())
def test_each_question_alone_equals_reference(case: dict, dense_share: int) -> None:
    index = BM25Index.from_texts(case["corpus"], **case["params"])
    ref = ReferenceBM25(case["corpus"], **case["params"])
    with scoring_path(dense_share):
        for query in [*case["queries"], "cat dog the policies"]:
            got = index.search([query], case["k"], mask=case["mask"])
            assert_same(got, ref.search([query], case["k"], allowed=case["allowed"]))


def zipf_corpus(seed: int, rows: int = 400) -> tuple[list[str], list[str]]:
    rng = np.random.default_rng(seed)
    corpus = [
        " ".join(f"w{z}" for z in rng.zipf(1.3, rng.integers(1, 40)) % 500) for _ in range(rows)
    ]
    queries = [
        " ".join(f"w{z}" for z in rng.zipf(1.3, rng.integers(1, 12)) % 500) for _ in range(40)
    ]
    return corpus, queries


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_reused_work_arrays_grow_with_k_and_query_length(seed: int) -> None:
    corpus, queries = zipf_corpus(seed)
    index, ref = BM25Index.from_texts(corpus), ReferenceBM25(corpus)
    # k and the query length rise and fall, so pooled arrays are reused, outgrown, replaced.
    long_query = " ".join(queries) + " w1 w1 w2"
    for k, query in [(1, queries[0]), (30, queries[1]), (3, long_query), (500, queries[2])]:
        assert_same(index.search([query], k), ref.search([query], k))
    batch = index.search(queries, 7)
    for i, query in enumerate(queries):
        got = index.search([query], 7)
        np.testing.assert_array_equal(got.ids[0], batch.ids[i])
        np.testing.assert_array_equal(got.scores[0], batch.scores[i])


def test_concurrent_callers_get_their_own_answers() -> None:
    corpus, queries = zipf_corpus(11, rows=2000)
    index = BM25Index.from_texts(corpus)
    mask = np.arange(len(corpus)) % 3 != 0
    want = [index.search([q], 5, mask=mask if i % 2 else None) for i, q in enumerate(queries)]

    def run(offset: int) -> bool:
        for step in range(len(queries)):
            i = (step + offset) % len(queries)
            got = index.search([queries[i]], 5, mask=mask if i % 2 else None)
            if not (
                np.array_equal(got.ids, want[i].ids) and np.array_equal(got.scores, want[i].scores)
            ):
                return False
        return True

    with ThreadPoolExecutor(max_workers=4) as pool:
        assert all(pool.map(run, range(0, 40, 10)))
