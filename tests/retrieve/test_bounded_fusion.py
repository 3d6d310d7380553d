"""Bounded fusion (the hybrid default): the formula against a plain twin, the fill-ins for rows
one side did not return, the embedder's declared weight, bad input, the hybrid retriever's use
of it, and batch search fusing exactly as one-by-one search does."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from docqa.embed import HashingEmbedder, TfidfEmbedder
from docqa.embed.minilm import MiniLMEmbedder
from docqa.errors import InputError
from docqa.keyword import BM25Index
from docqa.retrieve import DENSE, KEYWORD, DenseRetriever, HybridRetriever, KeywordRetriever
from docqa.retrieve.batch import search_batch
from docqa.retrieve.fusion import (
    LEXICAL_DENSE_WEIGHT,
    MODEL_DENSE_WEIGHT,
    bounded_fusion,
    dense_weight_for,
)
from docqa.retrieve.rows import IndexSearcher
from docqa.types import Chunk, Component

Pairs = list[tuple[int, float]]


def twin(dense: Pairs, keyword: Pairs, bound: float, w: float) -> list[tuple[int, float]]:
    """The rule written out plainly: (row, score) in canonical order."""
    floor = dense[-1][1] if dense else 0.0
    d, k = dict(dense), dict(keyword)
    rank = {r: i + 1 for i, (r, _) in enumerate(dense)}
    krank = {r: i + 1 for i, (r, _) in enumerate(keyword)}
    rows = set(d) | set(k)

    def share(r: int) -> float:  # a side of weight 0 adds 0, whatever its score
        return k.get(r, 0.0) / bound if bound > 0 and w < 1 else 0.0

    score = {r: w * d.get(r, floor) + (1 - w) * share(r) for r in rows}
    best = {r: min(rank.get(r, 10**9), krank.get(r, 10**9)) for r in rows}
    return [(r, score[r]) for r in sorted(rows, key=lambda r: (-score[r], best[r], r))]


def test_scores_follow_the_formula_and_fill_ins() -> None:
    dense = [(1, 0.8), (2, 0.5), (3, 0.3)]
    keyword = [(3, 12.0), (4, 6.0)]
    fused = bounded_fusion(dense, keyword, keyword_bound=20.0, dense_weight=0.5)
    by = {f.row: f.score for f in fused}
    assert by[1] == pytest.approx(0.5 * 0.8)  # no keyword hit: 0
    assert by[3] == pytest.approx(0.5 * 0.3 + 0.5 * 0.6)
    assert by[4] == pytest.approx(0.5 * 0.3 + 0.5 * 0.3)  # dense floor: its last cosine
    assert by[2] == pytest.approx(0.5 * 0.5)
    assert [f.row for f in fused] == [3, 1, 4, 2]
    assert fused[0].ranks == {"dense": 3, "keyword": 1} and fused[0].best_rank == 1


def test_a_weak_side_adds_little_where_min_max_would_stretch_it() -> None:
    # BM25 found only rows matching a sliver of the question: bounded fusion keeps the dense order
    dense = [(7, 0.9), (8, 0.4)]
    keyword = [(8, 1.0), (9, 0.5)]
    fused = bounded_fusion(dense, keyword, keyword_bound=40.0, dense_weight=0.5)
    assert [f.row for f in fused][:2] == [7, 8]


def test_weights_at_the_ends_follow_one_side() -> None:
    dense = [(1, 0.9), (2, 0.6), (3, 0.2)]
    keyword = [(3, 9.0), (2, 4.0), (5, 1.0)]
    only_dense = bounded_fusion(dense, keyword, keyword_bound=10.0, dense_weight=1.0)
    assert [f.row for f in only_dense][:3] == [1, 2, 3]
    only_keyword = bounded_fusion(dense, keyword, keyword_bound=10.0, dense_weight=0.0)
    assert [f.row for f in only_keyword] == [3, 2, 5, 1]
    assert only_keyword[0].score == pytest.approx(0.9)


def test_no_keyword_bound_means_no_keyword_evidence() -> None:
    fused = bounded_fusion([(1, 0.5)], [(2, 3.0)], keyword_bound=0.0, dense_weight=0.2)
    assert [(f.row, f.score) for f in fused] == [(1, pytest.approx(0.1)), (2, pytest.approx(0.1))]
    assert bounded_fusion([], [], keyword_bound=5.0) == []


def test_a_keyword_side_of_weight_zero_adds_nothing_even_over_a_subnormal_bound() -> None:
    # 4.0 / 5e-324 overflows to inf, and 0 * inf is nan: the side is skipped, not multiplied
    fused = bounded_fusion([], [(1, 4.0), (0, 0.0)], keyword_bound=5e-324, dense_weight=1.0)
    assert [(f.row, f.score) for f in fused] == [(1, 0.0), (0, 0.0)]  # by rank, both 0


def test_bad_input() -> None:
    ok: dict[str, Any] = {"keyword_bound": 1.0}
    with pytest.raises(InputError, match="dense_weight"):
        bounded_fusion([], [], keyword_bound=1.0, dense_weight=1.5)
    with pytest.raises(InputError, match="dense_weight"):
        bounded_fusion([], [], keyword_bound=1.0, dense_weight=math.nan)
    for bound in (-1.0, math.inf, math.nan):
        with pytest.raises(InputError, match="keyword_bound"):
            bounded_fusion([], [], keyword_bound=bound)
    with pytest.raises(InputError, match="appears twice in ranking 'dense'"):
        bounded_fusion([(1, 0.5), (1, 0.4)], [], **ok)
    with pytest.raises(InputError, match="'keyword' holds a score that is not finite"):
        bounded_fusion([], [(1, math.inf)], **ok)
    with pytest.raises(InputError, match="limit"):
        bounded_fusion([(1, 0.5)], [], limit=-1, **ok)


def ranked(low: float, high: float) -> st.SearchStrategy[Pairs]:
    pairs = st.lists(st.tuples(st.integers(0, 25), st.floats(low, high, allow_nan=False)))
    return pairs.map(lambda xs: sorted(dict(xs).items(), key=lambda p: (-p[1], p[0]))[:12])


@given(
    ranked(-1.0, 1.0),
    ranked(0.0, 30.0),
    st.floats(0.0, 60.0),
    st.floats(0.0, 1.0),
    st.integers(0, 30),
)
def test_equals_the_plain_twin(
    dense: Pairs, keyword: Pairs, bound: float, w: float, limit: int
) -> None:
    fused = bounded_fusion(dense, keyword, keyword_bound=bound, dense_weight=w, limit=limit)
    want = twin(dense, keyword, bound, w)[:limit]
    assert [f.row for f in fused] == [r for r, _ in want]
    assert [f.score for f in fused] == pytest.approx([s for _, s in want], abs=1e-12)
    keys = [(-f.score, f.best_rank, f.row) for f in fused]
    assert keys == sorted(keys)


class Delegating:
    """An embedder that says nothing about being lexical (as a model embedder would)."""

    def __init__(self, inner: HashingEmbedder) -> None:
        self.inner = inner
        self.name, self.dim = f"wrapped-{inner.name}", inner.dim

    def embed(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        return self.inner.embed(texts, query=query)

    def config(self) -> dict[str, Any]:
        return {"kind": "wrapped"}


def test_the_embedder_declares_its_weight() -> None:
    assert dense_weight_for(HashingEmbedder(32)) == LEXICAL_DENSE_WEIGHT
    assert dense_weight_for(TfidfEmbedder()) == LEXICAL_DENSE_WEIGHT
    assert dense_weight_for(MiniLMEmbedder) == MODEL_DENSE_WEIGHT
    assert dense_weight_for(Delegating(HashingEmbedder(32))) == MODEL_DENSE_WEIGHT
    assert dense_weight_for(None) == MODEL_DENSE_WEIGHT
    assert LEXICAL_DENSE_WEIGHT < MODEL_DENSE_WEIGHT


@pytest.fixture(scope="module")
def bm25(texts: list[str]) -> BM25Index:
    return BM25Index.from_texts(texts)


@pytest.mark.parametrize("lexical", [True, False])
def test_hybrid_default_is_bounded_with_the_embedders_weight(
    texts: list[str], chunks: list[Chunk], bm25: BM25Index, lexical: bool
) -> None:
    hashing = HashingEmbedder(64)
    embedder = hashing if lexical else Delegating(hashing)
    dense = DenseRetriever(embedder, hashing.embed(texts), chunks)
    keyword = KeywordRetriever(bm25, chunks)
    hybrid = HybridRetriever(dense, keyword)
    for question in ("overdue books fines", "pg_dump archive", "reading room hours", "zzz"):
        hits = hybrid.search(question, 4)
        d = [(h.row, h.score) for h in dense.search(question, 50)]
        k = [(h.row, h.score) for h in keyword.search(question, 50)]
        w = LEXICAL_DENSE_WEIGHT if lexical else MODEL_DENSE_WEIGHT
        want = bounded_fusion(
            d, k, keyword_bound=keyword.max_keyword_score(question), dense_weight=w
        )
        assert [(h.row, h.score) for h in hits] == [(f.row, f.score) for f in want[:4]]
        for h in hits:
            assert set(h.components) <= {DENSE, KEYWORD}
            if KEYWORD in h.components:
                assert h.components[KEYWORD] == Component(
                    dict(k)[h.row], h.components[KEYWORD].rank
                )


def test_hybrid_weights_override_and_bad_ones(
    texts: list[str], chunks: list[Chunk], bm25: BM25Index, fake: type
) -> None:
    embedder = HashingEmbedder(64)
    dense = DenseRetriever(embedder, embedder.embed(texts), chunks)
    keyword = KeywordRetriever(bm25, chunks)
    assert (
        HybridRetriever(dense, keyword, weights={DENSE: 1.0, KEYWORD: 3.0}).dense_weight() == 0.25
    )
    assert HybridRetriever(dense, keyword).dense_weight() == LEXICAL_DENSE_WEIGHT
    with pytest.raises(InputError, match="weights must give"):
        HybridRetriever(dense, keyword, weights={DENSE: 0.0, KEYWORD: 0.0}).search("books", 2)
    with pytest.raises(InputError, match="fusion='convex'"):
        HybridRetriever(dense, fake("k", [(0, 1.0)]))


@pytest.mark.parametrize("lexical", [True, False])
def test_batch_hybrid_fuses_as_one_by_one(
    texts: list[str], chunks: list[Chunk], bm25: BM25Index, lexical: bool
) -> None:
    hashing = HashingEmbedder(64)
    embedder = hashing if lexical else Delegating(hashing)
    vectors = hashing.embed(texts)
    hybrid = HybridRetriever(
        DenseRetriever(embedder, vectors, chunks), KeywordRetriever(bm25, chunks)
    )
    questions = ["overdue books fines", "pg_dump archive", "zzz", "retry error 40001", ""] * 4
    searcher = IndexSearcher(vectors, bm25)
    for k in (1, 3, 6):
        got = search_batch(searcher, embedder, chunks, questions, k, mode="hybrid", bounds=bm25)
        assert got == [hybrid.search(q, k) for q in questions]
    with pytest.raises(InputError, match="needs bounds"):
        search_batch(searcher, embedder, chunks, questions, 2, mode="hybrid")
    assert search_batch(
        searcher, embedder, chunks, questions, 2, mode="keyword"
    )  # no bounds needed
