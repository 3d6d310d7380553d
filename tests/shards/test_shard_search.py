"""Sharded search equals one-index search, bit for bit: dense, BM25, hybrid batches, masks,
ties, k beyond the rows, empty shards; and the canonical merge against its slow twin."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from docqa.embed import HashingEmbedder
from docqa.keyword import BM25Index
from docqa.keyword.stats import CorpusStats
from docqa.retrieve.batch import search_batch
from docqa.retrieve.rows import IndexSearcher
from docqa.shards.search import Shard, ShardSet, merge_topk, merge_topk_reference, padding
from docqa.types import Chunk, TopK

WORDS = ["cat", "cats", "dog", "the", "loan", "loans", "fine", "naïve", "pg_dump", "40001"]


def empty_bm25() -> BM25Index:
    none = np.zeros(0, dtype=np.int32)
    arrays = {"bm25_vocab": np.zeros(0, np.uint64), "bm25_indptr": np.zeros(1, np.int64),
              "bm25_rows": none, "bm25_tf": none, "bm25_lengths": none}  # fmt: skip
    return BM25Index.from_arrays(arrays, {"k1": 1.5, "b": 0.75})


def shard_set(vectors: np.ndarray, texts: list[str], cuts: list[int]) -> ShardSet:
    """Rows cut at ``cuts`` (repeats make empty shards), BM25 with the global statistics."""
    bounds = [0, *cuts, len(texts)]
    local = [
        BM25Index.from_texts(texts[a:b]) if b > a else empty_bm25()
        for a, b in itertools.pairwise(bounds)
    ]
    stats = CorpusStats.of(local)
    shards = [
        Shard(a, vectors[a:b], BM25Index.from_arrays(ix.to_arrays(), ix.config, stats=stats))
        for (a, b), ix in zip(itertools.pairwise(bounds), local, strict=True)
    ]
    return ShardSet(shards, len(texts))


@st.composite
def collections(draw: st.DrawFn) -> dict[str, Any]:
    n = draw(st.integers(1, 14))
    d = draw(st.integers(1, 6))
    # small integers: many exact ties between rows
    flat = draw(st.lists(st.integers(-2, 2), min_size=n * d, max_size=n * d))
    words = st.lists(st.sampled_from(WORDS), min_size=1, max_size=6).map(" ".join)
    texts = draw(st.lists(words, min_size=n, max_size=n))
    cuts = sorted(draw(st.lists(st.integers(0, n), max_size=4)))
    allowed = draw(st.lists(st.integers(0, n - 1), max_size=n))
    mask_kind = draw(st.sampled_from(["none", "bool", "ids"]))
    mask: np.ndarray | None = None
    if mask_kind == "bool":
        mask = np.zeros(n, dtype=bool)
        mask[allowed] = True
    elif mask_kind == "ids":
        mask = np.array(allowed, dtype=np.int64)
    n_q = draw(st.sampled_from([1, 3, 9]))  # 9 >= BATCH_MIN takes the sgemm-filter path
    queries = draw(st.lists(st.integers(-2, 2), min_size=n_q * d, max_size=n_q * d))
    return {
        "vectors": np.array(flat, dtype=np.float32).reshape(n, d),
        "texts": texts,
        "cuts": cuts,
        "mask": mask,
        "queries": np.array(queries, dtype=np.float32).reshape(n_q, d),
        "questions": draw(st.lists(words, min_size=n_q, max_size=n_q)),
        "k": draw(st.integers(0, n + 3)),
    }


def same(a: TopK, b: TopK) -> None:
    assert a.scores.dtype == b.scores.dtype == np.float32
    assert a.ids.dtype == b.ids.dtype == np.int64
    assert np.array_equal(a.ids, b.ids)
    assert np.array_equal(a.scores, b.scores)  # bit-identical scores, padding included


@given(collections())
def test_sharded_dense_and_bm25_equal_one_index(c: dict[str, Any]) -> None:
    single = IndexSearcher(c["vectors"], BM25Index.from_texts(c["texts"]))
    sharded = shard_set(c["vectors"], c["texts"], c["cuts"])
    same(sharded.dense(c["queries"], c["k"], c["mask"]), single.dense(c["queries"], c["k"], c["mask"]))  # fmt: skip
    same(
        sharded.keyword(c["questions"], c["k"], c["mask"]),
        single.keyword(c["questions"], c["k"], c["mask"]),
    )


def chunks_for(texts: list[str]) -> list[Chunk]:
    return [Chunk(f"doc#c{i}", "doc#c", ("Doc",), "doc.md", i, 1, 1, t, "h") for i, t in enumerate(texts)]  # fmt: skip


@given(collections(), st.sampled_from(["dense", "keyword", "hybrid"]))
def test_sharded_batch_hits_equal_one_index(c: dict[str, Any], mode: str) -> None:
    embedder = HashingEmbedder(16)
    vectors = embedder.embed(c["texts"])
    chunks = chunks_for(c["texts"])
    bounds = BM25Index.from_texts(
        c["texts"]
    )  # the global term statistics, as the sharded collection's
    single = IndexSearcher(vectors, bounds)
    sharded = shard_set(vectors, c["texts"], c["cuts"])
    args = (chunks, c["questions"], c["k"])
    want = search_batch(single, embedder, *args, mode=mode, mask=c["mask"], bounds=bounds)
    assert search_batch(sharded, embedder, *args, mode=mode, mask=c["mask"], bounds=bounds) == want
    assert all(len(hits) <= c["k"] for hits in want)


def test_corpus_stats_equal_the_whole_collections() -> None:
    texts = ["cat dog", "the loans", "cats fine fine", "naïve dog", "dog dog dog"]
    whole = BM25Index.from_texts(texts)
    stats = CorpusStats.of([BM25Index.from_texts(texts[:2]), empty_bm25(), BM25Index.from_texts(texts[2:])])  # fmt: skip
    assert np.array_equal(stats.vocab, whole.vocab)
    assert np.array_equal(stats.df, np.diff(whole.indptr))
    assert (stats.n_docs, stats.avgdl) == (whole.n_docs, whole.avgdl)
    bounds = BM25Index.bounds(stats, whole.config)
    questions = ["cat", "dog unknownword", "the", ""]
    assert np.array_equal(bounds.max_scores(questions), whole.max_scores(questions))


@st.composite
def sorted_parts(draw: st.DrawFn) -> tuple[list[TopK], int, int]:
    n, k = draw(st.integers(0, 3)), draw(st.integers(0, 6))
    rows = iter(range(1000))
    parts = []
    for _ in range(draw(st.integers(0, 4))):
        width = draw(st.integers(0, 5))
        scores = np.full((n, width), -np.inf, np.float32)
        ids = np.full((n, width), -1, np.int64)
        for q in range(n):
            real = draw(st.integers(0, width))
            vals = sorted(draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, -3.0]), min_size=real, max_size=real)), reverse=True)  # fmt: skip
            scores[q, :real] = vals
            # ids ascending within equal scores, as every shard returns them
            ids[q, :real] = [next(rows) for _ in range(real)]
        parts.append(TopK(scores, ids))
    return parts, n, k


@given(sorted_parts())
def test_merge_topk_equals_its_slow_twin(case: tuple[list[TopK], int, int]) -> None:
    parts, n, k = case
    same(merge_topk(parts, n, k), merge_topk_reference(parts, n, k))


def test_merge_of_nothing_is_padding() -> None:
    same(merge_topk([], 2, 3), padding(2, 3))
    assert merge_topk([padding(1, 2)], 1, 0).scores.shape == (1, 0)
