"""``StoreRetriever``: the ``Retriever`` protocol over a store, answering as the file index does.

SQL finds the rows; docqa's own code fixes their scores and order, so hits equal a file index's
built from the same documents (row ids aside: a hit's ``row`` is the store's ``row_id``, which
ascends in load order as a fresh file index's rows do):

- exact dense: ``sql.dense_candidates`` returns the rows within ``dense_slack`` of pgvector's
  k-th best score; ``docqa.search.topk`` rescores them (canonical dot product and order), so
  scores and order are the file index's bit for bit. With ``ef_search`` the search goes
  through the collection's HNSW index instead: approximate, pgvector's scores and ties.
- keyword: Okapi BM25 in one SQL statement over the collection's postings and statistics
  (``sql.keyword_query``), with the idf, average length and term order from a ``BM25Index``
  over those statistics: scores equal the file index's bit for bit (float32), order canonical.
- hybrid: ``HybridRetriever`` (bounded fusion, the embedder's dense weight, the question's
  BM25 bound from ``max_keyword_score``) over the two sides above.

Statistics are the collection's, over every tenant; the tenant and a mask only filter rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from psycopg import sql

from docqa._checks import question, whole
from docqa.embed.protocol import Embedder
from docqa.errors import IndexNotFound, InputError
from docqa.keyword import BM25Config, BM25Index
from docqa.retrieve.retrievers import DENSE, KEYWORD, HybridRetriever
from docqa.search import topk
from docqa.stores import sql as q
from docqa.stores.connection import translated
from docqa.stores.postings import read_config, read_stats
from docqa.text import hash_tokens
from docqa.types import Chunk, Component, Hit

if TYPE_CHECKING:
    from docqa.stores.pgvector import CollectionRecord, PgVectorStore

UNIT = 2.0**-24  # float32 unit roundoff


def dense_slack(dim: int, query: np.ndarray) -> float:
    """The candidate window of exact dense search, per unit of the largest row norm.

    Any float32 dot product of ``dim`` terms, summed in any order (pgvector's, docqa's
    lanes), is within ``g * sum(|x_i q_i|) <= g * ||x|| ||q||`` of the exact one, with
    ``g = dim u / (1 - dim u)`` (Higham, Accuracy and Stability, 3.1). So a row of the
    canonical top k scores at least ``c - 4 g M ||q||`` under pgvector, where ``c`` is
    pgvector's k-th best score and ``M`` the largest row norm: twice ``g M ||q||`` from the k
    rows at or above ``c`` down to the canonical k-th score, twice back to pgvector's score
    of the row. 1/1024 more covers the rounding of the norms themselves.
    """
    g = dim * UNIT / (1.0 - dim * UNIT)
    norm = float(np.linalg.norm(np.asarray(query, dtype=np.float64)))
    return 4.0 * g * norm * (1.0 + 2.0**-10)


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
    ) -> None:
        _check_ef_search(ef_search)
        if tenant is not None and (not isinstance(tenant, str) or not tenant):
            raise InputError(
                f"tenant must be a non-empty str or None (every tenant), got {tenant!r}"
            )
        self.store, self.record, self.embedder = store, record, embedder
        self.mode, self.tenant, self.ef_search = mode, tenant, ef_search
        self.components = {"dense": (DENSE,), "keyword": (KEYWORD,)}.get(mode, (DENSE, KEYWORD))
        self._bm25: BM25Config | None = None
        self._fused: HybridRetriever | None = None
        if mode == "hybrid":
            sides = [
                StoreRetriever(store, record, embedder, side, tenant=tenant, ef_search=ef_search)
                for side in (DENSE, KEYWORD)
            ]
            self._fused = HybridRetriever(*sides)

    def search(self, question: str, k: int, *, mask: np.ndarray | None = None) -> list[Hit]:
        """The ``k`` best rows of the tenant (and ``mask``), best first."""
        _check_request(question, k)
        if self._fused is not None:
            return self._fused.search(question, k, mask=mask)
        rows = store_rows(mask)
        if k == 0 or rows == []:
            return []
        cid, tenant, masked = self.record.collection_id, self.tenant is not None, rows is not None
        params: dict[str, Any] = {"k": int(k), "tenant": self.tenant, "rows": rows}
        if self.mode == KEYWORD:
            found = self._keyword(
                question, q.keyword_filters(cid, tenant=tenant, rows=masked), params
            )
        else:
            where = q.filters(cid, tenant=tenant, rows=masked)
            if self.ef_search is None:
                return self._exact(question, int(k), where, params)
            found = self._hnsw(question, where, params)
        return [self._hit(row, float(row[11]), rank) for rank, row in enumerate(found, start=1)]

    def _run(self, query: sql.Composed, params: dict[str, Any]) -> list[Any]:
        with translated(self.store.url, f"a {self.mode} search"):
            found: list[Any] = self.store.conn.execute(query, params).fetchall()
        return found

    def _exact(
        self, question: str, k: int, where: sql.Composable, params: dict[str, Any]
    ) -> list[Hit]:
        """SQL's candidates (``dense_slack``), rescored and ordered by ``docqa.search.topk``."""
        query = self.embedder.embed([question], query=True)[0]
        # a zero query scores every row +0.0 (docqa's lanes start at +0.0): its hits are the
        # first k rows, so only those are fetched (a window of ties would be every row)
        limit = None if query.any() else k
        params.update(q=query, slack=dense_slack(self.record.dim, query), limit=limit)
        found = self._run(q.dense_candidates(where, self.record.collection_id), params)
        if not found:
            return []
        matrix = np.stack([row[11].to_numpy() for row in found]).astype(np.float32, copy=False)
        best = topk(matrix, query, k)
        return [
            self._hit(found[int(i)], float(s), rank)
            for rank, (s, i) in enumerate(zip(best.scores[0], best.ids[0], strict=True), 1)
            if i >= 0
        ]

    def _hnsw(self, question: str, where: sql.Composable, params: dict[str, Any]) -> list[Any]:
        params["q"] = self.embedder.embed([question], query=True)[0]
        assert self.ef_search is not None  # the caller checked
        self.store.set_ef_search(self.ef_search)
        return self._run(q.hnsw_query(where, self.record.dim), params)

    def _keyword(self, question: str, where: sql.Composable, params: dict[str, Any]) -> list[Any]:
        bounds = self._bounds(question)
        order = bounds.term_order(question)
        if order.size == 0:
            return []
        k1, b = bounds.config.k1, bounds.config.b
        params.update(
            cid=self.record.collection_id,
            terms=bounds.vocab[order].view(np.int64).tolist(),
            idf=bounds.idf[order].tolist(),
            k1=k1,
            b=b,
            k1p1=k1 + 1.0,
            omb=1.0 - b,
            avgdl=bounds.avgdl,
        )
        return self._run(q.keyword_query(where), params)

    def _bounds(self, question: str) -> BM25Index:
        """A postings-free ``BM25Index`` over the collection's statistics for the question's
        terms (``BM25Index.bounds``): its idf, avgdl, term order and bound."""
        hashes = np.unique(hash_tokens([question], **self._config().tokens.as_kwargs()).hashes)
        with translated(self.store.url, "reading the BM25 statistics"):
            stats = read_stats(self.store.conn, self.record.collection_id, hashes)
        if stats is None:
            raise IndexNotFound(
                f"collection {self.record.name!r} is gone from {self.store.where}; index it again"
            )
        return BM25Index.bounds(stats, self._config())

    def _config(self) -> BM25Config:
        if self._bm25 is None:
            with translated(self.store.url, "reading the BM25 config"):
                self._bm25 = read_config(self.store.conn, self.record.collection_id)
        return self._bm25

    def _hit(self, row: Sequence[Any], score: float, rank: int) -> Hit:
        chunk = _chunk(row)
        parts = {self.mode: Component(score, rank)}
        return Hit(int(row[0]), chunk.id, chunk.section, score, parts, chunk=chunk)

    def max_keyword_score(self, question: str) -> float:
        """Upper bound of any row's BM25 score for ``question`` over the collection's
        statistics (as ``KeywordRetriever.max_keyword_score`` over the file index's)."""
        return float(self._bounds(question).max_scores([question])[0])
