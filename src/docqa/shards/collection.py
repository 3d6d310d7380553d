"""An opened sharded index and its retrievers: the same surface as ``Collection``.

Every search over it (dense, keyword, hybrid, masked, one question or a batch) returns what
the same collection indexed as one directory returns. ``searcher`` is where the rows are
searched: in this process (``ShardSet``) or in Ray actors (``docqa.distributed``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from docqa.collection_parts import RowsCollection, bm25_config, by_mode, embedder_of
from docqa.embed.protocol import Embedder
from docqa.errors import EmbedderMismatch
from docqa.index.shards import ShardedIndex, open_sharded
from docqa.keyword import ARRAYS, BM25Index
from docqa.retrieve.batch import RowSearcher
from docqa.retrieve.guard import GuardConfig, GuardRequest, resolve_guard
from docqa.retrieve.rerank import DEFAULT_TOP_N, Reranker
from docqa.shards.search import RowsDenseRetriever, RowsKeywordRetriever, Shard, ShardSet
from docqa.tenants import TenantRows
from docqa.types import Chunk, Hit, Retriever


def load_shard(index: ShardedIndex, i: int) -> Shard:
    """Shard ``i`` memory-mapped, its BM25 index scoring with the collection's statistics (and
    its row map, for a delta-updated index: its deleted rows may hold terms no live row does)."""
    shard = index.shards[i]
    arrays = {name: shard.array(name) for name in ARRAYS}
    ids = None if index.maps is None else index.maps[i]
    bm25 = BM25Index.from_arrays(
        arrays, bm25_config(shard), stats=index.stats, absent_ok=ids is not None
    )
    return Shard(int(index.offsets[i]), shard.vectors, bm25, ids)


def local_shards(index: ShardedIndex, n_threads: int | None = None) -> ShardSet:
    """Every shard of ``index``, searched in this process."""
    shards = [load_shard(index, i) for i in range(len(index.shards))]
    return ShardSet(shards, len(index), n_threads)


@dataclass
class ShardedCollection(RowsCollection):
    """A sharded index, its embedder, the global BM25 ``bounds`` and a ``searcher``."""

    index: ShardedIndex
    embedder: Embedder
    bounds: BM25Index
    searcher: RowSearcher
    guard: GuardConfig = field(default_factory=GuardConfig)  # calibrated: the top manifest's
    _tenants: TenantRows | None = field(default=None, init=False, repr=False)

    @classmethod
    def open(cls, path: str | Path, *, searcher: RowSearcher | None = None) -> ShardedCollection:
        """Open the sharded index at ``path``; search it locally unless given a ``searcher``."""
        return cls.of(open_sharded(path), searcher=searcher)

    @classmethod
    def of(cls, index: ShardedIndex, *, searcher: RowSearcher | None = None) -> ShardedCollection:
        """The collection of the opened sharded ``index``."""
        embedder = embedder_of(index.shards[0])
        for shard in index.shards[1:]:
            if shard.manifest.embedder != index.shards[0].manifest.embedder:
                raise EmbedderMismatch(
                    f"shards of {index.root} were built with different embedders; rebuild it"
                )
        bounds = BM25Index.bounds(index.stats, index.manifest.bm25["config"])
        guard = resolve_guard(index.manifest.meta.get("guard"))
        return cls(index, embedder, bounds, searcher or local_shards(index), guard)

    @property
    def bm25(self) -> BM25Index:
        """The collection's term statistics (what the guard and ``docqa calibrate`` judge
        with); searches go through ``searcher``."""
        return self.bounds

    @property
    def chunks(self) -> Sequence[Chunk]:
        """The chunks in global row order (decoded when accessed)."""
        return self.index.chunks

    def retriever(
        self,
        mode: str = "hybrid",
        *,
        guard: GuardRequest = True,
        tenants: Iterable[str] | None = None,
        reranker: Reranker | None = None,
        rerank_top: int = DEFAULT_TOP_N,
    ) -> Retriever:
        """As ``Collection.retriever`` (the guard judges with the collection's global term
        statistics, ``bounds``)."""
        source = str(self.index.root)
        dense = RowsDenseRetriever(self.embedder, self.searcher, self.chunks, source=source)
        keyword = RowsKeywordRetriever(self.searcher, self.chunks, self.bounds, source=source)
        inner = by_mode(mode, dense, keyword)
        return self.wrapped(mode, inner, keyword, guard, tenants, reranker, rerank_top)

    def row_searcher(self) -> RowSearcher:
        """The collection's ``searcher``."""
        return self.searcher

    def term_stats(self) -> BM25Index:
        """The global BM25 statistics, ``bounds``."""
        return self.bounds

    def source(self) -> str:
        """The sharded index's directory."""
        return str(self.index.root)

    def row_vectors(self, hits: Sequence[Hit]) -> np.ndarray:
        """The stored vectors of ``hits``' global rows, each read from its shard."""
        out = []
        for hit in hits:
            shard, local = self.index.locate(hit.row)
            out.append(self.index.shards[shard].vectors[local])
        return np.asarray(out, dtype=np.float32).reshape(len(hits), self.embedder.dim)
