"""A collection in PostgreSQL + pgvector: the ``collections`` record and the retrievers over it.

``PgVectorStore(url)`` connects (the URL, else ``$DOCQA_STORE_URL``), applies the migrations
and registers the ``vector`` type. A collection (``collection="default"``) records the
embedder's name, config and dim, and the guard point ``docqa calibrate --store`` fitted,
the role a file index's manifest plays: ``open_collection``
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
from docqa.errors import (
    DimensionMismatch,
    EmbedderMismatch,
    IndexCorrupt,
    IndexNotFound,
    InputError,
    StoreError,
)
from docqa.keyword import BM25Index
from docqa.retrieve.distinct import DistinctRetriever
from docqa.retrieve.guard import (
    GuardConfig,
    GuardedRetriever,
    GuardRequest,
    resolve_guard,
    semantic_side,
)
from docqa.stores.connection import connect, describe, store_url, translated
from docqa.stores.migrations import migrate
from docqa.stores.postings import read_config, read_stats
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
    guard: dict[str, Any] | None = None  # the calibrated guard point; None: the defaults


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

    @property
    def idle(self) -> bool:
        """Whether no transaction is in progress on the connection (a load's, a caller's)."""
        from psycopg import pq

        return bool(self.conn.info.transaction_status == pq.TransactionStatus.IDLE)

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
                "SELECT collection_id, name, embedder_name, embedder_config, dim, settings, guard "
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
        ``Collection.retriever`` takes it, over the collection's calibrated point (else the
        defaults), judged with the collection's term statistics and the keyword side's best
        passages within ``tenant``."""
        from docqa.stores.search import StoreRetriever

        check_mode(mode)
        record, embedder = self.open_collection(embedder)
        # each passage once, as a file index gives them (docqa.retrieve.distinct)
        inner = DistinctRetriever(
            StoreRetriever(self, record, embedder, mode, tenant=tenant, ef_search=ef_search)
        )
        config = resolve_guard(self.guard_point(record), guard)
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

    def guard_point(self, record: CollectionRecord) -> GuardConfig | None:
        """The guard point ``docqa calibrate --store`` stored for the collection (None: none);
        StoreError when the stored one does not read."""
        if record.guard is None:
            return None
        try:
            return GuardConfig.from_dict(record.guard)
        except IndexCorrupt:
            raise StoreError(
                f"the guard point stored for collection {record.name!r} in {self.where} does "
                f"not read ({record.guard}); re-run `docqa calibrate QUESTIONS --store URL "
                f"--collection {record.name}`"
            ) from None

    def save_guard(self, record: CollectionRecord, point: GuardConfig, fit: Any) -> None:
        """Store ``point`` as the collection's guard point and ``fit`` (JSON-ready: what the
        calibration found) beside it, in one UPDATE: a reader sees the old pair or the new."""
        from psycopg.types.json import Jsonb

        with translated(self.url, f"storing the guard point of collection {record.name!r}"):
            self.conn.execute(
                "UPDATE collections SET guard = %s, guard_calibration = %s "
                "WHERE collection_id = %s",
                (Jsonb(point.to_dict()), Jsonb(fit), record.collection_id),
            )

    def term_statistics(self, record: CollectionRecord) -> BM25Index:
        """The collection's term statistics for the guard, from its keyword rows (rows,
        tokens and each term's df over every tenant, as ``collections`` and ``term_df`` keep
        them: what a file index's guard reads from its BM25 arrays), read once per store."""
        cached = self._stats.get(record.collection_id)
        if cached is None:
            with translated(self.url, f"reading the term statistics of {record.name!r}"):
                stats = read_stats(self.conn, record.collection_id)
                config = read_config(self.conn, record.collection_id)
            if stats is None:
                raise IndexNotFound(f"collection {record.name!r} is gone from {self.where}")
            cached = BM25Index.bounds(stats, config)
            self._stats[record.collection_id] = cached
        return cached

    def sections(self) -> set[str]:
        """The section ids of the collection's chunks."""
        record, _ = self.open_collection()
        with translated(self.url, f"reading the sections of collection {record.name!r}"):
            rows = self.conn.execute(
                "SELECT DISTINCT section FROM chunks WHERE collection_id = %s",
                (record.collection_id,),
            ).fetchall()
        return {r[0] for r in rows}

    def set_ef_search(self, ef_search: int) -> None:
        """``SET hnsw.ef_search`` (and the strict iterative scan, so a tenant filter still
        fills k) on this connection, once per distinct value."""
        if self._ef_search == ef_search:
            return
        with translated(self.url, "setting hnsw.ef_search"):
            self.conn.execute("SELECT set_config('hnsw.ef_search', %s, false)", (str(ef_search),))
            self.conn.execute("SELECT set_config('hnsw.iterative_scan', 'strict_order', false)")
        self._ef_search = ef_search
