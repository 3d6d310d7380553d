"""An opened index directory and the retrievers over it (the question-time entry point).

``Collection.open(path)`` memory-maps the vectors, chunk store and BM25 arrays, rebuilds the
recorded embedder (with its fitted state for TF-IDF) and hands out retrievers by mode, each
wrapped in the weak-retrieval guard unless asked otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from docqa.embed import from_config
from docqa.embed.protocol import Embedder
from docqa.errors import IndexCorrupt, IndexNotFound, InputError
from docqa.index import open_index
from docqa.index.format import TFIDF_PREFIX
from docqa.index.reader import Index
from docqa.index.shards import is_sharded
from docqa.keyword import ARRAYS, BM25Index
from docqa.retrieve.guard import GuardConfig, GuardedRetriever
from docqa.retrieve.retrievers import DenseRetriever, HybridRetriever, KeywordRetriever
from docqa.types import Chunk, Hit, Retriever

if TYPE_CHECKING:
    from docqa.shards.collection import ShardedCollection

Mode = Literal["dense", "keyword", "hybrid"]
MODES: tuple[Mode, ...] = ("dense", "keyword", "hybrid")


@dataclass
class Collection:
    index: Index
    embedder: Embedder
    bm25: BM25Index

    @classmethod
    def open(cls, path: str | Path) -> Collection | ShardedCollection:
        """Open the index at ``path``, one directory or sharded (then a ``ShardedCollection``,
        with the same ``retriever`` and ``search_batch``); ``IndexNotFound`` says how to build
        one."""
        root = Path(path)
        if not (root / "manifest.json").exists():
            raise IndexNotFound(
                f"no index at {root}; build one with `docqa index FOLDER --index {root}`"
            )
        if is_sharded(root):
            from docqa.shards.collection import ShardedCollection

            return ShardedCollection.open(root)
        index = open_index(root)
        embedder = embedder_of(index)
        bm25 = BM25Index.from_arrays(
            {name: index.array(name) for name in ARRAYS}, bm25_config(index)
        )
        return cls(index=index, embedder=embedder, bm25=bm25)

    @property
    def chunks(self) -> Sequence[Chunk]:
        """The chunks in row order (decoded when accessed)."""
        return self.index.chunks

    def search_batch(
        self,
        questions: Sequence[str],
        k: int,
        *,
        mode: str = "hybrid",
        mask: np.ndarray | None = None,
    ) -> list[list[Hit]]:
        """Unguarded hits for every question through the batch kernels, in input order:
        the same as ``retriever(mode, guarded=False).search(q, k, mask=mask)`` one by one."""
        from docqa.retrieve.batch import IndexSearcher, search_batch

        searcher = IndexSearcher(self.index.vectors, self.bm25)
        return search_batch(
            searcher, self.embedder, self.chunks, questions, k, mode=mode, mask=mask
        )

    def retriever(
        self, mode: str = "hybrid", *, guard: GuardConfig | None = None, guarded: bool = True
    ) -> Retriever:
        """A retriever of ``mode`` over this collection, behind the guard when ``guarded``."""
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
        return GuardedRetriever(inner, guard) if guarded else inner


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
