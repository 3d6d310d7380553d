"""An opened index directory and the retrievers over it (the question-time entry point).

``Collection.open(path)`` memory-maps the vectors, chunk store and BM25 arrays, rebuilds the
recorded embedder (with its fitted state for TF-IDF) and hands out retrievers by mode, each
wrapped in the weak-retrieval guard unless asked otherwise. The guard's settings are those
``docqa calibrate`` stored in the manifest (``meta["guard"]``), else the measured defaults.
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
from docqa.retrieve.masked import MaskedRetriever
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
    guard: GuardConfig = field(default_factory=GuardConfig)
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
        guard = GuardConfig.from_dict(meta["guard"]) if "guard" in meta else GuardConfig()
        return cls(index=index, embedder=embedder, bm25=bm25, guard=guard)

    def dense_matrix(self) -> np.ndarray | CompactMatrix:
        """The vectors, as a :class:`CompactMatrix` when the index stores int8 codes (same
        results, a quarter of the bytes scanned)."""
        if COMPACT_ARRAYS[0] not in self.index.manifest.arrays:
            return self.index.vectors
        arrays = {name: self.index.array(name) for name in COMPACT_ARRAYS}
        return CompactMatrix.from_arrays(self.index.vectors, arrays)

    def retriever(
        self,
        mode: str = "hybrid",
        *,
        guard: GuardConfig | bool = True,
        tenants: Iterable[str] | None = None,
    ) -> Retriever:
        """A retriever of ``mode`` over this collection.

        ``guard``: True (default) puts it behind the collection's guard (``self.guard``: the
        calibrated settings, else the defaults); a ``GuardConfig`` behind that guard; False
        returns the bare retriever (hits however weak). ``tenants``: search only their rows
        (a row mask inside the kernels, see :meth:`tenant_mask`); None searches every row.
        """
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
        if tenants is not None:
            inner = MaskedRetriever(inner, self.tenant_mask(tenants))
        if guard is False:
            return inner
        config = self.guard if guard is True else guard
        if not isinstance(config, GuardConfig):
            raise InputError(f"guard must be True, False or a GuardConfig, got {guard!r}")
        return GuardedRetriever(inner, config, bm25=self.bm25)

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
