"""What both kinds of collection (one index directory, a sharded one) are put together from:
the embedder and BM25 settings an index records, the retriever of a mode, a retriever's
restriction to tenants and the guard, and ``RowsCollection``, a collection written once over
its rows' searcher (retrievers by mode, batch search, the layers around them)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from docqa._checks import mode as check_mode
from docqa.embed import from_config
from docqa.embed.protocol import Embedder
from docqa.errors import IndexCorrupt
from docqa.index.format import TFIDF_PREFIX
from docqa.index.reader import Index
from docqa.index.shards import ShardedIndex
from docqa.keyword import BM25Index
from docqa.retrieve.batch import check_questions, search_batch
from docqa.retrieve.distinct import DistinctRetriever, distinct_batch
from docqa.retrieve.drift import Semantic
from docqa.retrieve.guard import (
    GuardConfig,
    GuardedRetriever,
    GuardRequest,
    resolve_guard,
    semantic_side,
)
from docqa.retrieve.masked import MaskedRetriever
from docqa.retrieve.rerank import DEFAULT_TOP_N, Reranker, RerankingRetriever
from docqa.retrieve.rescore import DEFAULT_RESCORE_TOP, SemanticRescorer
from docqa.retrieve.retrievers import DenseRetriever, HybridRetriever, KeywordRetriever
from docqa.retrieve.rows import RowSearcher
from docqa.tenants import TenantLookup
from docqa.text.sections import embed_text
from docqa.types import Chunk, Hit, Retriever


def by_mode(mode: str, dense: Retriever, keyword: Retriever) -> Retriever:
    """The retriever of ``mode`` over a dense and a keyword retriever."""
    check_mode(mode)
    if mode == "dense":
        return dense
    if mode == "keyword":
        return keyword
    return HybridRetriever(dense, keyword)


def restricted(
    inner: Retriever,
    masks: Any,
    guard: GuardRequest,
    tenants: Iterable[str] | None,
    stored: GuardConfig,
    bm25: BM25Index,
    *,
    evidence: Retriever | None = None,
    semantic: Semantic | None = None,
) -> Retriever:
    """``inner`` limited to ``tenants``' rows (``masks.tenant_mask``) and behind the guard
    ``guard`` asks for over the collection's ``stored`` one (``resolve_guard``), judged with
    ``bm25``'s term statistics and, beside the hits, the best passages of ``evidence`` (the
    keyword side), limited alike; ``semantic`` adds the drift check (:mod:`docqa.retrieve.drift`)."""
    if tenants is not None:
        mask = masks.tenant_mask(tenants)
        inner = MaskedRetriever(inner, mask)
        evidence = None if evidence is None else MaskedRetriever(evidence, mask)
    config = resolve_guard(stored, guard)
    if config is None:
        return inner
    return GuardedRetriever(inner, config, bm25=bm25, evidence=evidence, semantic=semantic)


def embedder_of(index: Index) -> Embedder:
    """The embedder recorded in ``index``'s manifest, restored with its fitted state."""
    state = {
        name[len(TFIDF_PREFIX) :]: index.array(name)
        for name in index.manifest.arrays
        if name.startswith(TFIDF_PREFIX)
    }
    embedder = from_config(index.manifest.embedder.get("config", {}), state or None)
    index.check_embedder(embedder)
    return embedder


def bm25_config(index: Index) -> Mapping[str, Any]:
    """The BM25 settings recorded in ``index``'s manifest; ``IndexCorrupt`` when absent."""
    if "bm25" not in index.manifest.meta:
        raise IndexCorrupt(
            f"{index.root}/manifest.json records no BM25 settings; rebuild the index"
        )
    config: Mapping[str, Any] = index.manifest.meta["bm25"]
    return config


class RowsCollection(TenantLookup, ABC):
    """A collection written once over what holds its rows: ``retriever`` (a mode's retriever
    over the rows' searcher, with the reranker, rescorer, tenant and guard layers around it)
    and ``search_batch``. A subclass has ``index`` (one directory or a sharded one),
    ``embedder``, ``bm25`` and ``guard`` and says where its rows are searched
    (``row_searcher``) and how its stored vectors are read (``row_vectors``)."""

    index: Index | ShardedIndex
    embedder: Embedder
    bm25: BM25Index  # whose term statistics the guard and hybrid fusion judge with
    guard: GuardConfig

    @abstractmethod
    def row_searcher(self) -> RowSearcher:
        """What searches the collection's rows (dense and keyword, masked, in batches)."""

    @abstractmethod
    def row_vectors(self, hits: Sequence[Hit]) -> np.ndarray:
        """The stored vectors of ``hits``' rows: float32 ``(len(hits), dim)``."""

    @property
    def chunks(self) -> Sequence[Chunk]:
        """The chunks in row order (decoded when accessed)."""
        return self.index.chunks

    def source(self) -> str:
        """The index's directory, as error messages name it."""
        return str(self.index.root)

    def retriever(
        self,
        mode: str = "hybrid",
        *,
        guard: GuardRequest = True,
        tenants: Iterable[str] | None = None,
        reranker: Reranker | None = None,
        rerank_top: int = DEFAULT_TOP_N,
        rescore: Embedder | None = None,
        rescore_top: int = DEFAULT_RESCORE_TOP,
    ) -> Retriever:
        """A retriever of ``mode`` over this collection.

        ``guard``: True (default) puts it behind the collection's guard (``self.guard``: the
        calibrated settings, else the defaults); a ``GuardConfig`` behind that guard; a
        mapping behind the collection's guard with those settings changed; False returns the
        bare retriever (hits however weak) (:func:`~docqa.retrieve.guard.resolve_guard`).
        ``tenants``: search only their rows (a row mask inside the kernels, see
        :meth:`tenant_mask`); None searches every row.
        With ``reranker``, the best ``rerank_top`` hits are reordered by it (inside the guard).
        With ``rescore`` (a model such as MiniLM) hybrid mode ranks BM25's best ``rescore_top``
        passages by the model's cosines fused with their BM25 scores
        (:class:`docqa.retrieve.rescore.SemanticRescorer`) instead of the index's own vectors.
        """
        rows, chunks, stats, source = self.row_searcher(), self.chunks, self.bm25, self.source()
        dense = DenseRetriever(self.embedder, rows, chunks, source=source)
        keyword = KeywordRetriever(stats, chunks, rows=rows, source=source)
        # each passage once (docqa.retrieve.distinct), before a reranker or the rescorer reads
        # its best rows: they reorder distinct passages, and what they return stays distinct
        inner: Retriever = DistinctRetriever(by_mode(mode, dense, keyword))
        if rescore is not None and mode == "hybrid":
            rescorer = SemanticRescorer(rescore, stats, self.passage_text)
            inner = RerankingRetriever(DistinctRetriever(keyword), rescorer, top_n=rescore_top)
        if reranker is not None:
            inner = RerankingRetriever(inner, reranker, top_n=rerank_top)
        side = None if mode == "keyword" else keyword
        semantic = semantic_side(self.embedder, self.row_vectors)
        return restricted(
            inner, self, guard, tenants, self.guard, stats, evidence=side, semantic=semantic
        )

    def passage_text(self, hit: Hit) -> str:
        """What an embedder reads for ``hit``'s passage, as this index was built (heading path
        first unless built with ``--no-headings``)."""
        headings = bool(self.index.manifest.meta.get("settings", {}).get("headings", True))
        chunk = hit.chunk if hit.chunk is not None else self.chunks[hit.row]
        return embed_text(chunk, headings=headings)

    def search_batch(
        self,
        questions: Sequence[str],
        k: int,
        *,
        mode: str = "hybrid",
        mask: np.ndarray | None = None,
    ) -> list[list[Hit]]:
        """Unguarded hits for every question through the batch kernels, in input order:
        the same as ``retriever(mode, guard=False).search(q, k, mask=mask)`` one by one (each
        passage once, :mod:`docqa.retrieve.distinct`: a question whose best ``k`` rows repeat
        a passage is searched again for more, with the others that do)."""

        def batch(texts: Sequence[str], m: int) -> list[list[Hit]]:
            return search_batch(
                self.row_searcher(),
                self.embedder,
                self.chunks,
                texts,
                m,
                mode=mode,
                mask=mask,
                bounds=self.bm25,
                source=self.source(),
            )

        return distinct_batch(batch, check_questions(questions), k)
