"""What both kinds of collection (one index directory, a sharded one) are put together from:
the embedder and BM25 settings an index records, the retriever of a mode, and a retriever's
restriction to tenants and the guard."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from docqa._checks import mode as check_mode
from docqa.embed import from_config
from docqa.embed.protocol import Embedder
from docqa.errors import IndexCorrupt
from docqa.index.format import TFIDF_PREFIX
from docqa.index.reader import Index
from docqa.keyword import BM25Index
from docqa.retrieve.drift import Semantic
from docqa.retrieve.guard import GuardConfig, GuardedRetriever, GuardRequest, resolve_guard
from docqa.retrieve.masked import MaskedRetriever
from docqa.retrieve.retrievers import HybridRetriever
from docqa.types import Retriever


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
