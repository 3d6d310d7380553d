"""An opened sharded index and its retrievers: the same surface as ``Collection``.

Every search over it (dense, keyword, hybrid, masked, one question or a batch) returns what
the same collection indexed as one directory returns. ``searcher`` is where the rows are
searched: in this process (``ShardSet``) or in Ray actors (``docqa.distributed``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from docqa.collection_parts import RowsCollection, bm25_config, embedder_of
from docqa.embed.protocol import Embedder
from docqa.errors import EmbedderMismatch
from docqa.index.shards import ShardedIndex, open_sharded
from docqa.keyword import ARRAYS, BM25Index
from docqa.retrieve.guard import GuardConfig, resolve_guard
from docqa.retrieve.rows import RowSearcher
from docqa.shards.search import Shard, ShardSet
from docqa.tenants import TenantRows
from docqa.types import Hit


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
    """A sharded index, its embedder, the collection's BM25 term statistics (``bm25``: what
    the guard, hybrid fusion and ``docqa calibrate`` judge with) and a ``searcher``."""

    index: ShardedIndex
    embedder: Embedder
    bm25: BM25Index  # the global term statistics only; searches go through ``searcher``
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

    def row_searcher(self) -> RowSearcher:
        """The collection's ``searcher``."""
        return self.searcher

    def row_vectors(self, hits: Sequence[Hit]) -> np.ndarray:
        """The stored vectors of ``hits``' global rows, each read from its shard."""
        out = []
        for hit in hits:
            shard, local = self.index.locate(hit.row)
            out.append(self.index.shards[shard].vectors[local])
        return np.asarray(out, dtype=np.float32).reshape(len(hits), self.embedder.dim)
