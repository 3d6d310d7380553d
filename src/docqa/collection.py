"""An opened index directory and the retrievers over it (the question-time entry point).

``Collection.open(path)`` memory-maps the vectors, chunk store and BM25 arrays, rebuilds the
recorded embedder (with its fitted state for TF-IDF) and hands out retrievers by mode, each
wrapped in the weak-retrieval guard unless asked otherwise. The guard's settings are those
``docqa calibrate`` stored in the manifest (``meta["guard"]``), else the measured defaults. A
sharded index opens as a :class:`~docqa.shards.collection.ShardedCollection` with the same
surface (``retriever``, ``search_batch``, ``tenant_mask``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TypeAlias

import numpy as np

from docqa.collection_parts import RowsCollection, bm25_config, embedder_of
from docqa.embed.protocol import Embedder
from docqa.index.format import array_file, no_index
from docqa.index.reader import Index
from docqa.index.shards import ShardedIndex, open_any
from docqa.keyword import ARRAYS, BM25Index
from docqa.retrieve.guard import GuardConfig, resolve_guard
from docqa.retrieve.rows import IndexSearcher
from docqa.search.compact_names import ARRAYS as COMPACT_ARRAYS
from docqa.tenants import TenantRows
from docqa.types import Hit

if TYPE_CHECKING:
    from docqa.search.compact import CompactMatrix
    from docqa.shards.collection import ShardedCollection

Mode = Literal["dense", "keyword", "hybrid"]
AnyCollection: TypeAlias = "Collection | ShardedCollection"
"""What ``Collection.open`` returns: one index directory or a sharded one."""
MODES: tuple[Mode, ...] = ("dense", "keyword", "hybrid")


@dataclass
class Collection(RowsCollection):
    """One opened index directory: its chunks, its embedder, its BM25 index and the guard's
    settings, handing out retrievers by mode (``retriever``) and searching batches
    (``search_batch``), both over its ``IndexSearcher``. Made by ``Collection.open``."""

    index: Index
    embedder: Embedder
    bm25: BM25Index
    guard: GuardConfig = field(default_factory=GuardConfig)
    _tenants: TenantRows | None = field(default=None, init=False, repr=False)
    _rows: IndexSearcher | None = field(default=None, init=False, repr=False)

    @classmethod
    def open(cls, path: str | Path) -> Collection | ShardedCollection:
        """Open the index at ``path``, one directory or sharded (then a ``ShardedCollection``,
        with the same ``retriever`` and ``search_batch``); ``IndexNotFound`` says how to build
        one."""
        root = Path(path)
        if not (root / "manifest.json").exists():
            raise no_index(root)
        index = open_any(root)  # the manifest read once: plain or sharded, one build
        if isinstance(index, ShardedIndex):
            from docqa.shards.collection import ShardedCollection

            return ShardedCollection.of(index)
        bm25 = BM25Index.from_arrays(
            {name: index.array(name) for name in ARRAYS}, bm25_config(index)
        )
        guard = resolve_guard(index.manifest.meta.get("guard"))
        return cls(index=index, embedder=embedder_of(index), bm25=bm25, guard=guard)

    def dense_matrix(self) -> np.ndarray | CompactMatrix:
        """The vectors, as a :class:`CompactMatrix` when the index stores int8 codes (same
        results, a quarter of the bytes scanned)."""
        if COMPACT_ARRAYS[0] not in self.index.manifest.arrays:
            return self.index.vectors  # (not importing the compact module spares Numba)
        from docqa.search.compact import CompactMatrix

        arrays = {name: self.index.array(name) for name in COMPACT_ARRAYS}
        files = {name: str(self.index.root / array_file(name)) for name in COMPACT_ARRAYS}
        return CompactMatrix.from_arrays(self.index.vectors, arrays, files)

    def row_searcher(self) -> IndexSearcher:
        """The index's vectors (``dense_matrix``) and BM25 index, opened on first use."""
        if self._rows is None:
            self._rows = IndexSearcher(self.dense_matrix(), self.bm25)
        return self._rows

    def row_vectors(self, hits: Sequence[Hit]) -> np.ndarray:
        """The stored vectors of ``hits``' rows: float32 ``(len(hits), dim)``."""
        return np.asarray(self.index.vectors[[h.row for h in hits]])
