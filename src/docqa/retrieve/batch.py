"""Batch search: many questions at once through the batch kernels, same hits as one by one.

A ``RowSearcher`` (:mod:`docqa.retrieve.rows`: one index, a set of shards or Ray actors
owning shards) answers whole batches with row ids and canonical scores (``TopK``).
``search_batch`` turns its answers into the hits that
``Collection.retriever(mode, guard=False).search(question, k)`` returns for each question:
dense and keyword directly, hybrid by the same fusion as ``HybridRetriever``'s default
(``bounded_fusion`` over ``max(k, FUSION_DEPTH)`` rows of each, each question's keyword bound
from ``bounds``, the collection's BM25 term statistics, and the dense weight from the
embedder). Rows become hits (their chunks decoded) only once they are in the final top k.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from docqa._checks import mode as check_mode
from docqa._checks import questions, whole
from docqa.embed.protocol import Embedder
from docqa.errors import InputError
from docqa.keyword import BM25Index
from docqa.retrieve.fusion import bounded_fusion, dense_weight_for
from docqa.retrieve.retrievers import DENSE, FUSION_DEPTH, KEYWORD, check_scores, hits_of
from docqa.retrieve.rows import RowSearcher
from docqa.types import Chunk, Component, Hit, TopK


def check_questions(values: Any) -> list[str]:
    """``values`` as a list of questions (``docqa._checks.questions``)."""
    return questions(values)


def search_batch(
    searcher: RowSearcher,
    embedder: Embedder,
    chunks: Sequence[Chunk],
    questions: Sequence[str],
    k: int,
    *,
    mode: str = "hybrid",
    mask: np.ndarray | None = None,
    bounds: BM25Index | None = None,
    source: str | None = None,
) -> list[list[Hit]]:
    """The unguarded hits of ``mode`` for every question, in input order (see module doc).

    ``bounds`` (needed for ``mode="hybrid"``): the BM25 index whose ``max_scores`` give each
    question's keyword bound, as the one-by-one keyword retriever's ``max_keyword_score``.
    A score that is not finite stops the search (``check_scores``; ``source`` names the index).
    """
    qs = check_questions(questions)
    k = whole(k, "k")
    check_mode(mode)
    limits = _keyword_bounds(bounds, qs) if mode == "hybrid" else []
    fetch = max(k, FUSION_DEPTH) if mode == "hybrid" else k
    lists: dict[str, TopK] = {}
    if mode in ("dense", "hybrid"):
        lists[DENSE] = searcher.dense(embedder.embed(qs, query=True), fetch, mask)
    if mode in ("keyword", "hybrid"):
        lists[KEYWORD] = searcher.keyword(qs, fetch, mask)
    if mode != "hybrid":
        (name, result), = lists.items()  # fmt: skip
        return [hits_of(result, chunks, name, source, i=i) for i in range(len(qs))]
    for name, result in lists.items():
        check_scores(result.scores.ravel(), result.ids.ravel(), name, source)
    weight = dense_weight_for(embedder)
    return [_fused_hits(lists, i, int(k), chunks, limits[i], weight) for i in range(len(qs))]


def _keyword_bounds(bounds: BM25Index | None, questions: list[str]) -> list[float]:
    """Each question's BM25 bound; ``InputError`` without ``bounds``."""
    if bounds is None:
        raise InputError("hybrid batch search needs bounds (the collection's BM25 index)")
    return [float(x) for x in bounds.max_scores(questions)]


def _ranked(result: TopK, i: int) -> list[tuple[int, float]]:
    """Row ``i`` of ``result`` as ``(row, score)`` pairs, padding dropped."""
    rows, scores = result.ids[i], result.scores[i]
    n = int(np.count_nonzero(rows >= 0))
    return list(zip(rows[:n].tolist(), scores[:n].tolist(), strict=True))


def _fused_hits(
    lists: dict[str, TopK],
    i: int,
    k: int,
    chunks: Sequence[Chunk],
    bound: float,
    weight: float,
) -> list[Hit]:
    """What ``HybridRetriever.search`` makes of the same two ranked lists (bounded fusion)."""
    ranked = {name: _ranked(result, i) for name, result in lists.items()}
    score_of = {name: dict(pairs) for name, pairs in ranked.items()}
    fused = bounded_fusion(
        ranked[DENSE], ranked[KEYWORD], keyword_bound=bound, dense_weight=weight, limit=k
    )
    hits = []
    for f in fused:
        chunk = chunks[f.row]
        components = {n: Component(score_of[n][f.row], r) for n, r in f.ranks.items()}
        hits.append(Hit(f.row, chunk.id, chunk.section, f.score, components, chunk=chunk))
    return hits
