"""An opened index directory and the retrievers over it (the question-time entry point).

``Collection.open(path)`` memory-maps the vectors, chunk store and BM25 arrays, rebuilds the
recorded embedder (with its fitted state for TF-IDF) and hands out retrievers by mode, each
wrapped in the weak-retrieval guard unless asked otherwise.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import numpy as np

from docqa.embed import from_config
from docqa.embed.protocol import Embedder
from docqa.errors import IndexCorrupt, IndexNotFound, InputError
from docqa.index import open_index
from docqa.index.format import TFIDF_PREFIX
from docqa.index.reader import Index
from docqa.keyword import ARRAYS, BM25Index
from docqa.retrieve.guard import GuardConfig, GuardedRetriever
from docqa.retrieve.retrievers import DenseRetriever, HybridRetriever, KeywordRetriever
from docqa.search.compact import ARRAYS as COMPACT_ARRAYS
from docqa.search.compact import CompactMatrix
from docqa.tenants import tenant_codes, tenant_rows
from docqa.types import Retriever

Mode = Literal["dense", "keyword", "hybrid"]
MODES: tuple[Mode, ...] = ("dense", "keyword", "hybrid")


@dataclass
class Collection:
    index: Index
    embedder: Embedder
    bm25: BM25Index
    _tenants: tuple[tuple[str, ...], np.ndarray] | None = field(
        default=None, init=False, repr=False
    )
    _masks: dict[frozenset[str], np.ndarray] = field(default_factory=dict, init=False, repr=False)

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

    def dense_matrix(self) -> np.ndarray | CompactMatrix:
        """The vectors, as a :class:`CompactMatrix` when the index stores int8 codes (same
        results, a quarter of the bytes scanned)."""
        if COMPACT_ARRAYS[0] not in self.index.manifest.arrays:
            return self.index.vectors
        arrays = {name: self.index.array(name) for name in COMPACT_ARRAYS}
        return CompactMatrix.from_arrays(self.index.vectors, arrays)

    def retriever(
        self, mode: str = "hybrid", *, guard: GuardConfig | None = None, guarded: bool = True
    ) -> Retriever:
        """A retriever of ``mode`` over this collection, behind the guard when ``guarded``."""
        chunks = self.index.chunks
        dense = DenseRetriever(self.embedder, self.dense_matrix(), chunks)
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

    def tenant_mask(self, tenants: Iterable[str]) -> np.ndarray:
        """Bool ``(N,)``: the rows whose chunk belongs to one of ``tenants`` (see
        :mod:`docqa.tenants`). The rows' tenants are read once per opened index and each mask
        is kept, so a repeated call costs a dict lookup; pass it to a search as ``mask=``."""
        wanted = frozenset(tenants)
        mask = self._masks.get(wanted)
        if mask is None:
            mask = tenant_rows(*self._tenant_codes(), wanted)
            mask.setflags(write=False)
            self._masks[wanted] = mask
        return mask

    def tenants(self) -> tuple[str, ...]:
        """The distinct tenants of this index's chunks, first-seen order."""
        return self._tenant_codes()[0]

    def _tenant_codes(self) -> tuple[tuple[str, ...], np.ndarray]:
        if self._tenants is None:
            self._tenants = tenant_codes(c.metadata for c in self.index.chunks)
        return self._tenants
