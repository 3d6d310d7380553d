"""An opened index directory and the retrievers over it (the question-time entry point).

``Collection.open(path)`` memory-maps the vectors, chunk store and BM25 arrays, rebuilds the
recorded embedder (with its fitted state for TF-IDF) and hands out retrievers by mode, each
wrapped in the weak-retrieval guard unless asked otherwise. The guard's settings are those
``docqa calibrate`` stored in the manifest (``meta["guard"]``), else the measured defaults. A
sharded index opens as a :class:`~docqa.shards.collection.ShardedCollection` with the same
surface (``retriever``, ``search_batch``, ``tenant_mask``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TypeAlias

import numpy as np

from docqa.collection_parts import RowsCollection, bm25_config, by_mode, embedder_of
from docqa.embed.protocol import Embedder
from docqa.index.format import array_file, no_index
from docqa.index.reader import Index
from docqa.index.shards import ShardedIndex, open_any
from docqa.keyword import ARRAYS, BM25Index
from docqa.retrieve.batch import IndexSearcher
from docqa.retrieve.guard import GuardConfig, GuardRequest, resolve_guard
from docqa.retrieve.rerank import DEFAULT_TOP_N, Reranker, RerankingRetriever
from docqa.retrieve.rescore import DEFAULT_RESCORE_TOP, SemanticRescorer
from docqa.retrieve.retrievers import DenseRetriever, KeywordRetriever
from docqa.search.compact_names import ARRAYS as COMPACT_ARRAYS
from docqa.tenants import TenantRows
from docqa.text.sections import embed_text
from docqa.types import Chunk, Hit, Retriever

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
    (``search_batch``). Made by ``Collection.open``."""

    index: Index
    embedder: Embedder
    bm25: BM25Index
    guard: GuardConfig = field(default_factory=GuardConfig)
    _tenants: TenantRows | None = field(default=None, init=False, repr=False)

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

    @property
    def chunks(self) -> Sequence[Chunk]:
        """The chunks in row order (decoded when accessed)."""
        return self.index.chunks

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
        """The index's float32 rows and BM25 index, searched in batches."""
        return IndexSearcher(self.index.vectors, self.bm25)

    def term_stats(self) -> BM25Index:
        """The index's BM25 index."""
        return self.bm25

    def source(self) -> str:
        """The index directory."""
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
        chunks = self.index.chunks
        source = str(self.index.root)
        dense = DenseRetriever(self.embedder, self.dense_matrix(), chunks, source=source)
        keyword = KeywordRetriever(self.bm25, chunks, source=source)
        inner = by_mode(mode, dense, keyword)
        if rescore is not None and mode == "hybrid":
            rescorer = SemanticRescorer(rescore, self.bm25, self.passage_text)
            inner = RerankingRetriever(keyword, rescorer, top_n=rescore_top)
        return self.wrapped(mode, inner, keyword, guard, tenants, reranker, rerank_top)

    def passage_text(self, hit: Hit) -> str:
        """What an embedder reads for ``hit``'s passage, as this index was built (heading path
        first unless built with ``--no-headings``)."""
        headings = bool(self.index.manifest.meta.get("settings", {}).get("headings", True))
        chunk = hit.chunk if hit.chunk is not None else self.index.chunks[hit.row]
        return embed_text(chunk, headings=headings)

    def row_vectors(self, hits: Sequence[Hit]) -> np.ndarray:
        """The stored vectors of ``hits``' rows: float32 ``(len(hits), dim)``."""
        return np.asarray(self.index.vectors[[h.row for h in hits]])
