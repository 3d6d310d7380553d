"""A collection in PostgreSQL + pgvector: the ``collections`` record and the retrievers over it.

``PgVectorStore(url)`` connects (the URL, else ``$DOCQA_STORE_URL``), applies the migrations
and registers the ``vector`` type. A collection (``collection="default"``) records the
embedder's name, config and dim, the role a file index's manifest plays: ``open_collection``
rebuilds that embedder, and refuses another one with ``EmbedderMismatch`` or
``DimensionMismatch`` as a file index does. ``retriever(mode, tenant=...)`` returns a
``docqa.types.Retriever`` whose SQL filters the tenant in its WHERE clause; writing is
``docqa.stores.load.index_to_store``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Self

from docqa._checks import mode as check_mode
from docqa.embed import from_config
from docqa.embed.protocol import Embedder
from docqa.errors import DimensionMismatch, EmbedderMismatch, IndexNotFound, InputError
from docqa.keyword import BM25Index
from docqa.retrieve.guard import GuardedRetriever, GuardRequest, resolve_guard, semantic_side
from docqa.stores.connection import connect, describe, store_url, translated
from docqa.stores.migrations import migrate
from docqa.types import Retriever

DEFAULT_COLLECTION = "default"


@dataclass(frozen=True)
class CollectionRecord:
    """One row of ``collections``: what the collection's vectors were embedded with."""

    collection_id: int
    name: str
    embedder_name: str
    embedder_config: dict[str, Any]
    dim: int
    settings: dict[str, Any]


def _same_json(a: Any, b: Any) -> bool:
    """Equal after a JSON round trip (tuples become lists, keys strings)."""
    return bool(
        json.loads(json.dumps(a, sort_keys=True)) == json.loads(json.dumps(b, sort_keys=True))
    )


class PgVectorStore:
    """A connection to a docqa database and one collection in it (see the module docstring)."""

    def __init__(self, url: str | None = None, *, collection: str = DEFAULT_COLLECTION) -> None:
        if not isinstance(collection, str) or not collection.strip():
            raise InputError(f"collection must be a non-empty name, got {collection!r}")
        self.url = store_url(url)
        self.where = describe(self.url)
        self.collection = collection
        self.conn = connect(self.url)
        try:
            with translated(self.url, "the schema migration"):
                migrate(self.conn, self.where)
                from pgvector.psycopg import register_vector

                register_vector(self.conn)
        except BaseException:
            self.conn.close()
            raise
        self._ef_search: int | None = None
        self._stats: dict[int, BM25Index] = {}  # term statistics by collection, for the guard

    def __repr__(self) -> str:
        return f"PgVectorStore({self.where!r}, collection={self.collection!r})"

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        """Close the store's database connection."""
        self.conn.close()

    def record(self) -> CollectionRecord | None:
        """This store's collection row, or None when it was never indexed."""
        with translated(self.url, f"reading collection {self.collection!r}"):
            row = self.conn.execute(
                "SELECT collection_id, name, embedder_name, embedder_config, dim, settings "
                "FROM collections WHERE name = %s",
                (self.collection,),
            ).fetchone()
        return None if row is None else CollectionRecord(*row)

    def open_collection(
        self, embedder: Embedder | None = None
    ) -> tuple[CollectionRecord, Embedder]:
        """The collection's record and its embedder: rebuilt from the record, or ``embedder``
        checked against it (DimensionMismatch / EmbedderMismatch when it differs)."""
        record = self.record()
        if record is None:
            raise IndexNotFound(
                f"no collection {self.collection!r} in {self.where}; build it with "
                f"`docqa index PATHS --store URL --collection {self.collection}`"
            )
        if embedder is None:
            return record, from_config(record.embedder_config)
        self.check_embedder(record, embedder)
        return record, embedder

    def check_embedder(self, record: CollectionRecord, embedder: Embedder) -> None:
        """Raise unless ``embedder`` is the one ``record`` was built with."""
        what = f"collection {record.name!r} in {self.where}"
        if int(embedder.dim) != record.dim:
            raise DimensionMismatch(
                f"{what} holds {record.dim}-dim vectors from {record.embedder_name!r}, the "
                f"embedder {embedder.name!r} makes {embedder.dim}; use {record.embedder_name!r} "
                "or index into another --collection"
            )
        if embedder.name != record.embedder_name or not _same_json(
            embedder.config(), record.embedder_config
        ):
            raise EmbedderMismatch(
                f"{what} was built with {record.embedder_name!r} (config "
                f"{record.embedder_config}), the embedder is {embedder.name!r} (config "
                f"{embedder.config()}); use {record.embedder_name!r} or index into another "
                "--collection"
            )

    def retriever(
        self,
        mode: str = "hybrid",
        *,
        tenant: str | None,
        ef_search: int | None = None,
        embedder: Embedder | None = None,
        guard: GuardRequest = True,
    ) -> Retriever:
        """A retriever of ``mode`` over the collection, restricted to ``tenant`` (None: every
        row); dense search is exact unless ``ef_search`` is given (then HNSW). ``guard``: as
        ``Collection.retriever`` takes it, over the defaults (a store stores no guard point)."""
        from docqa.stores.search import StoreRetriever

        check_mode(mode)
        record, embedder = self.open_collection(embedder)
        inner = StoreRetriever(self, record, embedder, mode, tenant=tenant, ef_search=ef_search)
        config = resolve_guard(None, guard)
        if config is None:
            return inner
        side = None
        if mode != "keyword":  # the guard judges the keyword side's best passages beside the hits
            side = StoreRetriever(self, record, embedder, "keyword", tenant=tenant)
        return GuardedRetriever(
            inner,
            config,
            bm25=self.term_statistics(record),
            evidence=side,
            semantic=semantic_side(embedder),  # the drift check embeds the hits' texts
        )

    def term_statistics(self, record: CollectionRecord) -> BM25Index:
        """The collection's term statistics for the guard (vocabulary and document
        frequencies over every chunk's text, all tenants: the same collection-wide statistics
        a file index's guard reads), built once per store object from one SELECT."""
        cached = self._stats.get(record.collection_id)
        if cached is None:
            with translated(self.url, f"reading the texts of collection {self.collection!r}"):
                rows = self.conn.execute(
                    "SELECT text FROM chunks WHERE collection_id = %s ORDER BY row_id",
                    (record.collection_id,),
                ).fetchall()
            cached = BM25Index.from_texts([r[0] for r in rows] or [""])
            self._stats[record.collection_id] = cached
        return cached

    def set_ef_search(self, ef_search: int) -> None:
        """``SET hnsw.ef_search`` (and the strict iterative scan, so a tenant filter still
        fills k) on this connection, once per distinct value."""
        if self._ef_search == ef_search:
            return
        with translated(self.url, "setting hnsw.ef_search"):
            self.conn.execute("SELECT set_config('hnsw.ef_search', %s, false)", (str(ef_search),))
            self.conn.execute("SELECT set_config('hnsw.iterative_scan', 'strict_order', false)")
        self._ef_search = ef_search
