"""An opened index directory and the retrievers over it (the question-time entry point).

``Collection.open(path)`` memory-maps the vectors, chunk store and BM25 arrays, rebuilds the
recorded embedder (with its fitted state for TF-IDF) and hands out retrievers by mode, each
wrapped in the weak-retrieval guard unless asked otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from docqa.embed import from_config
from docqa.embed.protocol import Embedder
from docqa.errors import IndexCorrupt, IndexNotFound, InputError
from docqa.index import open_index
from docqa.index.format import TFIDF_PREFIX
from docqa.index.reader import Index
from docqa.keyword import ARRAYS, BM25Index
from docqa.retrieve.guard import GuardConfig, GuardedRetriever
from docqa.retrieve.rerank import DEFAULT_TOP_N, Reranker, RerankingRetriever
from docqa.retrieve.retrievers import DenseRetriever, HybridRetriever, KeywordRetriever
from docqa.types import Retriever

Mode = Literal["dense", "keyword", "hybrid"]
MODES: tuple[Mode, ...] = ("dense", "keyword", "hybrid")


@dataclass
class Collection:
    index: Index
    embedder: Embedder
    bm25: BM25Index

    @classmethod
    def open(cls, path: str | Path) -> Collection:
        """Open the index at ``path``; ``IndexNotFound`` says how to build one."""
        root = Path(path)
        if not (root / "manifest.json").exists():
            raise IndexNotFound(
                f"no index at {root}; build one with `docqa index FOLDER --index {root}`"
            )
        index = open_index(root)
        meta = index.manifest.meta
        record = index.manifest.embedder
        state = {
            name[len(TFIDF_PREFIX) :]: index.array(name)
            for name in index.manifest.arrays
            if name.startswith(TFIDF_PREFIX)
        }
        embedder = from_config(record.get("config", {}), state or None)
        index.check_embedder(embedder)
        if "bm25" not in meta:
            raise IndexCorrupt(f"{root}/manifest.json records no BM25 settings; rebuild the index")
        bm25 = BM25Index.from_arrays({name: index.array(name) for name in ARRAYS}, meta["bm25"])
        return cls(index=index, embedder=embedder, bm25=bm25)

    def retriever(
        self,
        mode: str = "hybrid",
        *,
        guard: GuardConfig | None = None,
        guarded: bool = True,
        reranker: Reranker | None = None,
        rerank_top: int = DEFAULT_TOP_N,
    ) -> Retriever:
        """A retriever of ``mode`` over this collection, behind the guard when ``guarded``;
        with ``reranker``, its best ``rerank_top`` hits are reordered by it (inside the guard)."""
        chunks = self.index.chunks
        dense = DenseRetriever(self.embedder, self.index.vectors, chunks)
        keyword = KeywordRetriever(self.bm25, chunks)
        inner: Retriever
        if mode == "dense":
            inner = dense
        elif mode == "keyword":
            inner = keyword
        elif mode == "hybrid":
            inner = HybridRetriever(dense, keyword)
        else:
            raise InputError(f"unknown mode {mode!r}; choose one of {', '.join(MODES)}")
        if reranker is not None:
            inner = RerankingRetriever(inner, reranker, top_n=rerank_top)
        return GuardedRetriever(inner, guard) if guarded else inner
