"""Dense, keyword and hybrid retrievers: one protocol, hits that name their chunk and parts."""

from __future__ import annotations

import numpy as np
import pytest

from docqa.embed.hashing import HashingEmbedder
from docqa.errors import DimensionMismatch, InputError
from docqa.keyword import BM25Index
from docqa.retrieve import DENSE, KEYWORD, DenseRetriever, HybridRetriever, KeywordRetriever
from docqa.search import topk
from docqa.types import Chunk, Component, Retriever


@pytest.fixture(scope="module")
def dense(texts: list[str], chunks: list[Chunk]) -> DenseRetriever:
    embedder = HashingEmbedder(64)
    return DenseRetriever(embedder, embedder.embed(texts), chunks)


@pytest.fixture(scope="module")
def keyword(texts: list[str], chunks: list[Chunk]) -> KeywordRetriever:
    return KeywordRetriever(BM25Index.from_texts(texts), chunks)


def test_dense_hits_match_topk_and_name_their_chunks(
    dense: DenseRetriever, chunks: list[Chunk]
) -> None:
    question = "how long can I borrow books"
    want = topk(dense.rows.matrix, dense.embedder.embed([question], query=True), 3)
    hits = dense.search(question, 3)
    assert [h.row for h in hits] == want.ids[0].tolist()
    assert [h.score for h in hits] == pytest.approx(want.scores[0].tolist())
    for rank, hit in enumerate(hits, start=1):
        assert (hit.id, hit.section) == (chunks[hit.row].id, chunks[hit.row].section)
        assert hit.chunk is chunks[hit.row]
        assert hit.components == {DENSE: Component(hit.score, rank)}


def test_padding_is_dropped_and_masks_pass_through(
    dense: DenseRetriever, keyword: KeywordRetriever, texts: list[str]
) -> None:
    assert len(dense.search("books", 50)) == len(texts)
    assert dense.search("books", 0) == [] and keyword.search("books", 0) == []
    assert {h.row for h in dense.search("books", 10, mask=np.array([1, 4]))} <= {1, 4}
    assert [h.row for h in keyword.search("books", 10, mask=np.array([1, 4]))] == [1]
    assert keyword.search("the and of", 5) == []


def test_keyword_hits_match_bm25(keyword: KeywordRetriever, chunks: list[Chunk]) -> None:
    for question, row in [("max_connections", 2), ("pg_dump -Fc", 3), ("error 40001", 4)]:
        hits = keyword.search(question, 2)
        assert hits[0].row == row and hits[0].id == chunks[row].id
        want = keyword.bm25.search([question], 2)
        assert [h.row for h in hits] == [r for r in want.ids[0].tolist() if r >= 0]
        assert hits[0].components == {KEYWORD: Component(hits[0].score, 1)}
    bound = keyword.bm25.max_scores(["error 40001"])[0]
    assert keyword.max_keyword_score("error 40001") == bound


def test_hybrid_fuses_over_fetched_lists(fake: type, chunks: list[Chunk]) -> None:
    fake_dense = fake("d", [(0, 0.9), (1, 0.8), (2, 0.7)])
    fake_keyword = fake("k", [(2, 12.0), (5, 9.0), (0, 1.0)])
    hybrid = HybridRetriever(fake_dense, fake_keyword, fusion="rrf", over_fetch=3)
    assert isinstance(hybrid, Retriever)
    mask = np.array([0, 1, 2, 5])
    hits = hybrid.search("q", 2, mask=mask)
    assert fake_dense.calls == [("q", 6, mask)] and fake_keyword.calls == [("q", 6, mask)]
    # rows 0 and 2 both earn 1/61 + 1/63 with best rank 1: the smaller row id first
    assert [h.row for h in hits] == [0, 2]
    assert hits[0].score == hits[1].score == pytest.approx(1 / 61 + 1 / 63)
    assert hits[0].components == {DENSE: Component(0.9, 1), KEYWORD: Component(1.0, 3)}
    assert hits[1].components == {DENSE: Component(0.7, 3), KEYWORD: Component(12.0, 1)}
    assert hits[0].id == chunks[0].id and hits[1].section == chunks[2].section
    rest = hybrid.search("q", 4)
    assert [h.row for h in rest] == [0, 2, 1, 5]
    assert rest[3].components == {KEYWORD: Component(9.0, 2)}


def test_hybrid_weights_and_real_retrievers(
    dense: DenseRetriever, keyword: KeywordRetriever
) -> None:
    hybrid = HybridRetriever(dense, keyword, weights={DENSE: 0.0, KEYWORD: 1.0})
    assert [h.row for h in hybrid.search("pg_dump -Fc", 3)][:1] == [3]
    assert hybrid.max_keyword_score("pg_dump") == keyword.max_keyword_score("pg_dump")
    assert HybridRetriever(dense, keyword).search("books", 0) == []


def test_bad_arguments(
    dense: DenseRetriever, keyword: KeywordRetriever, chunks: list[Chunk]
) -> None:
    with pytest.raises(DimensionMismatch, match="6 rows but 5 chunks"):
        KeywordRetriever(keyword.bm25, chunks[:5])
    with pytest.raises(DimensionMismatch, match="chunks"):
        DenseRetriever(dense.embedder, dense.rows.matrix[:2], chunks)
    with pytest.raises(InputError, match="question must be a str"):
        keyword.search(["books"], 2)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="k must be"):
        dense.search("books", -1)
    with pytest.raises(InputError, match="over_fetch"):
        HybridRetriever(dense, keyword, over_fetch=0)
    with pytest.raises(InputError, match="max_keyword_score"):
        HybridRetriever(dense, dense).max_keyword_score("books")
