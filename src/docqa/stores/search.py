"""``StoreRetriever``: the ``Retriever`` protocol answered by one SQL statement per question.

Hits have the shape of the file index's retrievers (``docqa.retrieve.retrievers``): ``row`` is
the store's ``row_id``, components ``"dense"`` (inner product; cosine for unit-length
embedders) and ``"keyword"`` (``ts_rank_cd`` with normalisation 32, in [0, 1)), hybrid
``score`` the RRF score. ``max_keyword_score`` is 1.0, the bound of that normalisation, so the
guard's keyword share is the rank itself (a weaker test than BM25's attainable maximum).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from docqa._checks import question, whole
from docqa.embed.protocol import Embedder
from docqa.errors import InputError
from docqa.retrieve.fusion import DEFAULT_RRF_K
from docqa.retrieve.retrievers import DENSE, KEYWORD
from docqa.stores import sql as q
from docqa.stores.connection import translated
from docqa.types import Chunk, Component, Hit

if TYPE_CHECKING:
    from docqa.stores.pgvector import CollectionRecord, PgVectorStore

OVER_FETCH = 4  # hybrid asks each side for k * OVER_FETCH rows, as HybridRetriever does


def _check_request(text: Any, k: Any) -> None:
    question(text)
    whole(k, "k")


def _check_ef_search(ef_search: Any) -> None:
    if ef_search is not None and (
        isinstance(ef_search, bool) or not isinstance(ef_search, int) or not 1 <= ef_search <= 1000
    ):
        raise InputError(
            f"ef_search must be an int in 1..1000 (pgvector's range), got {ef_search!r}"
        )


def store_rows(mask: Any) -> list[int] | None:
    """A mask for a store: row ids (``row_id`` values); None allows every row."""
    if mask is None:
        return None
    m = np.asarray(mask)
    if m.ndim != 1 or not (np.issubdtype(m.dtype, np.integer) or m.size == 0) or m.dtype == bool:
        raise InputError(
            f"a store's mask is a 1-D array of row ids (row_id values), got dtype {m.dtype} "
            f"shape {m.shape}"
        )
    return sorted({int(v) for v in m})


def _chunk(row: Sequence[Any]) -> Chunk:
    _, cid, section, path, source, position, start, end, text, digest, metadata = row[:11]
    return Chunk(cid, section, tuple(path), source, position, start, end, text, digest, metadata)


class StoreRetriever:
    """Dense (exact, or HNSW with ``ef_search``), keyword or hybrid search of one collection."""

    def __init__(
        self,
        store: PgVectorStore,
        record: CollectionRecord,
        embedder: Embedder,
        mode: str,
        *,
        tenant: str | None,
        ef_search: int | None = None,
        rrf_k: float = DEFAULT_RRF_K,
    ) -> None:
        _check_ef_search(ef_search)
        if tenant is not None and (not isinstance(tenant, str) or not tenant):
            raise InputError(
                f"tenant must be a non-empty str or None (every tenant), got {tenant!r}"
            )
        self.store, self.record, self.embedder = store, record, embedder
        self.mode, self.tenant, self.ef_search, self.rrf_k = mode, tenant, ef_search, rrf_k
        self.components = {"dense": (DENSE,), "keyword": (KEYWORD,)}.get(mode, (DENSE, KEYWORD))

    def search(self, question: str, k: int, *, mask: np.ndarray | None = None) -> list[Hit]:
        """The ``k`` best rows of the tenant (and ``mask``), best first."""
        _check_request(question, k)
        rows = store_rows(mask)
        if k == 0 or rows == []:
            return []
        where = q.filters(
            self.record.collection_id, tenant=self.tenant is not None, rows=rows is not None
        )
        params: dict[str, Any] = {"k": int(k), "tenant": self.tenant, "rows": rows}
        # PostgreSQL text cannot hold NUL; it separates words like any other control character
        words = question.replace("\x00", " ")
        params.update(question=words, fetch=int(k) * OVER_FETCH, rrf_k=float(self.rrf_k))
        dim = self.record.dim if self.ef_search is not None else None
        if self.mode != KEYWORD:
            params["q"] = self.embedder.embed([question], query=True)[0]
        if self.mode == DENSE:
            query = q.dense_query(where, dim)
        elif self.mode == KEYWORD:
            query = q.keyword_query(where)
        else:
            query = q.hybrid_query(where, dim)
        if self.ef_search is not None and self.mode != KEYWORD:
            self.store.set_ef_search(self.ef_search)
        with translated(self.store.url, f"a {self.mode} search"):
            found = self.store.conn.execute(query, params).fetchall()
        return [self._hit(row, rank) for rank, row in enumerate(found, start=1)]

    def _hit(self, row: Sequence[Any], rank: int) -> Hit:
        chunk = _chunk(row)
        if self.mode != "hybrid":
            score = float(row[11])
            parts = {self.mode: Component(score, rank)}
            return Hit(int(row[0]), chunk.id, chunk.section, score, parts, chunk=chunk)
        rrf, d_score, d_rank, k_score, k_rank = row[11:16]
        parts = {}
        if d_rank is not None:
            parts[DENSE] = Component(float(d_score), int(d_rank))
        if k_rank is not None:
            parts[KEYWORD] = Component(float(k_score), int(k_rank))
        return Hit(int(row[0]), chunk.id, chunk.section, float(rrf), parts, chunk=chunk)

    def max_keyword_score(self, question: str) -> float:
        """1.0: ``ts_rank_cd`` normalised with 32 stays below it (see the module docstring)."""
        return 1.0
