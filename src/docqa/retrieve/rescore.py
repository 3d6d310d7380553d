"""Semantic rescoring: a model's judgement of meaning on an index built without the model.

A lexical index (hashing, TF-IDF) builds at disk speed; a MiniLM index embeds every passage
and builds at the model's pace. :class:`SemanticRescorer` sits between the two: at question
time it embeds the question and BM25's best ``top_n`` passages with the model (each passage
once, through the embedder's cache), and ranks those passages by the same bounded fusion
hybrid search uses (:func:`docqa.retrieve.fusion.bounded_fusion`, the model's dense weight),
with the passages' cosines as the dense side and their BM25 scores as the keyword side. Rows
BM25 did not find are not considered: the rescored list holds what BM25 found, reordered.

It is a :class:`~docqa.retrieve.rerank.Reranker`: ``RerankingRetriever(keyword, rescorer,
top_n=...)`` asks the keyword retriever for ``top_n`` hits and keeps the best ``k``; the guard
judges the result as any other. Each hit keeps its ``"keyword"`` component and gains
``"dense"`` (cosine, rank among the rescored) and ``"rerank"`` (fused score, rank).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from docqa.embed.protocol import Embedder
from docqa.keyword import BM25Index
from docqa.retrieve.fusion import bounded_fusion, dense_weight_for
from docqa.retrieve.rerank import RERANK
from docqa.retrieve.retrievers import DENSE, KEYWORD
from docqa.types import Component, Hit

DEFAULT_RESCORE_TOP = 50
"""BM25 hits rescored per question (what the figures in the README were measured with)."""


class SemanticRescorer:
    """Rerank BM25 hits by bounded fusion of a model's cosines and their BM25 scores.

    ``model`` embeds questions and passages (wrap it in a ``CachedEmbedder`` to keep passage
    vectors across processes); ``bm25`` gives each question's keyword bound; ``text`` is what
    the model embeds for a hit (the passage as the index would embed it, heading path first).
    """

    def __init__(self, model: Embedder, bm25: BM25Index, text: Callable[[Hit], str]) -> None:
        self.model = model
        self.bm25 = bm25
        self.text = text
        self.weight = dense_weight_for(model)
        self._vectors: dict[str, np.ndarray] = {}

    def vectors(self, hits: Sequence[Hit]) -> np.ndarray:
        """float32 ``(len(hits), dim)``: each hit's passage embedded once per rescorer."""
        texts = [self.text(h) for h in hits]
        missing = list(dict.fromkeys(t for t in texts if t not in self._vectors))
        if missing:
            for t, v in zip(missing, self.model.embed(missing), strict=True):
                self._vectors[t] = v
        if not texts:
            return np.zeros((0, self.model.dim), dtype=np.float32)
        return np.stack([self._vectors[t] for t in texts])

    def rerank(self, question: str, hits: Sequence[Hit]) -> list[Hit]:
        """``hits`` (BM25's, best first) in bounded-fusion order of cosine and BM25 score."""
        if not hits:
            return []
        query = self.model.embed([question], query=True)[0]
        cosines = [float(c) for c in self.vectors(hits) @ query]
        dense = sorted(
            ((h.row, c) for h, c in zip(hits, cosines, strict=True)), key=lambda t: (-t[1], t[0])
        )
        keyword = [(h.row, _keyword_score(h)) for h in hits]
        bound = float(self.bm25.max_scores([question])[0])
        fused = bounded_fusion(dense, keyword, keyword_bound=bound, dense_weight=self.weight)
        by_row = {h.row: h for h in hits}
        cosine = dict(dense)
        dense_rank = {row: rank for rank, (row, _) in enumerate(dense, start=1)}
        out = []
        for rank, f in enumerate(fused, start=1):
            h = by_row[f.row]
            components = {
                **h.components,
                DENSE: Component(cosine[f.row], dense_rank[f.row]),
                RERANK: Component(f.score, rank),
            }
            out.append(Hit(h.row, h.id, h.section, f.score, components, chunk=h.chunk))
        return out


def _keyword_score(hit: Hit) -> float:
    part = hit.components.get(KEYWORD)
    return hit.score if part is None else part.score
