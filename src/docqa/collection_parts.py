"""What both kinds of collection (one index directory, a sharded one) are put together from:
the embedder and BM25 settings an index records, the retriever of a mode, a retriever's
restriction to tenants and the guard, and ``RowsCollection``, the part of a collection written
over its rows' searcher (batch search, and the wiring around a mode's retriever)."""

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
from docqa.keyword import BM25Index
from docqa.retrieve.batch import RowSearcher, search_batch
from docqa.retrieve.drift import Semantic
from docqa.retrieve.guard import (
    GuardConfig,
    GuardedRetriever,
    GuardRequest,
    resolve_guard,
    semantic_side,
)
from docqa.retrieve.masked import MaskedRetriever
from docqa.retrieve.rerank import Reranker, RerankingRetriever
from docqa.retrieve.retrievers import HybridRetriever
from docqa.tenants import TenantLookup
from docqa.types import Hit, Retriever


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
    """A collection's surface written once over what holds its rows: ``search_batch`` and the
    reranker, tenant and guard layers around a mode's retriever (``wrapped``). A subclass has
    ``embedder``, ``guard`` and ``chunks`` and says where its rows are searched."""

    embedder: Embedder
    guard: GuardConfig

    @abstractmethod
    def row_searcher(self) -> RowSearcher:
        """What searches the collection's rows (dense and keyword, masked, in batches)."""

    @abstractmethod
    def term_stats(self) -> BM25Index:
        """The BM25 index whose term statistics the guard and hybrid fusion judge with."""

    @abstractmethod
    def source(self) -> str:
        """The index's path, as error messages name it."""

    @abstractmethod
    def row_vectors(self, hits: Sequence[Hit]) -> np.ndarray:
        """The stored vectors of ``hits``' rows: float32 ``(len(hits), dim)``."""

    def search_batch(
        self,
        questions: Sequence[str],
        k: int,
        *,
        mode: str = "hybrid",
        mask: np.ndarray | None = None,
    ) -> list[list[Hit]]:
        """Unguarded hits for every question through the batch kernels, in input order:
        the same as ``retriever(mode, guard=False).search(q, k, mask=mask)`` one by one."""
        return search_batch(
            self.row_searcher(),
            self.embedder,
            self.chunks,
            questions,
            k,
            mode=mode,
            mask=mask,
            bounds=self.term_stats(),
            source=self.source(),
        )

    def wrapped(
        self,
        mode: str,
        inner: Retriever,
        keyword: Retriever,
        guard: GuardRequest,
        tenants: Iterable[str] | None,
        reranker: Reranker | None,
        rerank_top: int,
    ) -> Retriever:
        """``inner`` (the retriever of ``mode``; ``keyword``: the keyword one) reordered by
        ``reranker``'s best ``rerank_top``, limited to ``tenants`` and behind ``guard``
        (``restricted``), with the drift check over the stored vectors."""
        if reranker is not None:
            inner = RerankingRetriever(inner, reranker, top_n=rerank_top)
        side = None if mode == "keyword" else keyword
        semantic = semantic_side(self.embedder, self.row_vectors)
        stats = self.term_stats()
        return restricted(
            inner, self, guard, tenants, self.guard, stats, evidence=side, semantic=semantic
        )
