"""Write a collection: load, chunk and embed with the file index's code, streamed in batches.

``index_to_store`` loads and chunks one file at a time (``docqa.stores.feed``: the file
index's loaders and chunker, tenants from folders as it takes them), builds the texts with
``embed_text`` and the embedder with ``IndexSettings.make_embedder`` (the same calls as
``docqa.build``). For each group of ``batch_rows`` chunks it notes their ids in a temporary
table and reads the stored row hashes of those ids; a chunk whose row hash (its text,
heading path, lines, metadata and embedded text) differs is queued, and every ``batch_rows``
queued chunks are embedded and upserted (COPY into temporary tables, then one INSERT .. ON
CONFLICT) with their BM25 postings and the changes to the collection's BM25 statistics
(``docqa.stores.postings``). At the end the rows of chunks no longer produced (removed
files, shorter documents) are deleted and taken off the statistics. The client holds one
file's document, two batches of chunks and their vectors at a time, whatever the size of the
load or of the collection.

The whole load is one transaction: readers see the collection as it was until the commit,
and a load that fails (a bad file, an embedder error, a lost connection, Ctrl-C) leaves it
exactly as it was, a new collection's record included; its error says how many rows were
rolled back. After the commit the tables are analyzed and the collection's HNSW index is
created if missing (a later upsert keeps it current): an error there leaves the load
committed and says so.

New rows take row ids in the chunks' order, so a first load numbers its rows as the file
index does and ties break alike; a row rewritten later keeps its id, and a chunk added later
takes the next one (a file index rebuilt then would place it among its file's neighbours). A
row without postings (written by a store of schema version 1) counts as changed, so loading
again adds them.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from docqa.build import IndexSettings, passed_over
from docqa.embed.protocol import Embedder
from docqa.errors import DocqaError, InputError
from docqa.keyword import BM25Config
from docqa.stores import postings as kw
from docqa.stores import sql as q
from docqa.stores.connection import ROLLED_BACK, translated
from docqa.stores.feed import ChunkFeed, Progress
from docqa.stores.pgvector import CollectionRecord, PgVectorStore
from docqa.stores.rows import row_hash, upsert
from docqa.text import SkippedFile, embed_text
from docqa.types import Chunk

__all__ = ["BATCH_ROWS", "StoreReport", "create_hnsw", "ensure_collection", "index_to_store"]
__all__ += ["row_hash", "upsert"]  # (docqa.stores.rows), named here too

BATCH_ROWS = 1000

# the chunk ids a load produced: what is not among them is deleted at its end
_SEEN = "CREATE TEMP TABLE IF NOT EXISTS docqa_seen (chunk_id text) ON COMMIT DELETE ROWS"
_COPY_SEEN = "COPY docqa_seen (chunk_id) FROM STDIN (FORMAT BINARY)"


@dataclass(frozen=True)
class StoreReport:
    """What one ``index_to_store`` call did."""

    where: str
    collection: str
    chunks: int
    upserted: int  # chunks embedded and written by this call
    unchanged: int
    deleted: int
    skipped: tuple[SkippedFile, ...]
    embedder: str
    seconds: float
    passed_over: tuple[tuple[str, int], ...] = ()  # as ``BuildReport.passed_over``


def ensure_collection(
    store: PgVectorStore, embedder: Embedder, settings: IndexSettings
) -> CollectionRecord:
    """The collection's record, created for ``embedder`` if new; a mismatch is refused."""
    from psycopg.types.json import Jsonb

    record = store.record()
    if record is not None:
        store.check_embedder(record, embedder)
    with translated(store.url, f"recording collection {store.collection!r}"):
        store.conn.execute(
            "INSERT INTO collections (name, embedder_name, embedder_config, dim, settings, bm25) "
            "VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (name) DO UPDATE SET settings = "
            "EXCLUDED.settings, bm25 = COALESCE(collections.bm25, EXCLUDED.bm25)",
            (
                store.collection,
                embedder.name,
                Jsonb(embedder.config()),
                embedder.dim,
                Jsonb(asdict(settings)),
                Jsonb(BM25Config().to_dict()),
            ),
        )
    fresh = store.record()
    assert fresh is not None  # just written
    return fresh


def _check_settings(settings: IndexSettings, batch_rows: int) -> None:
    if settings.embedder != "hashing":
        raise InputError(
            f"the pgvector store takes the hashing embedder, not {settings.embedder!r} (a fitted "
            "embedder depends on the whole collection); use --embedder hashing"
        )
    if isinstance(batch_rows, bool) or not isinstance(batch_rows, int) or batch_rows < 1:
        raise InputError(f"batch_rows must be an int >= 1, got {batch_rows!r}")


@dataclass
class _Load:
    """One load's state between batches: the changed rows waiting for a batch, and counts."""

    store: PgVectorStore
    record: CollectionRecord
    embedder: Embedder
    headings: bool
    batch_rows: int
    pending: list[tuple[Chunk, str, str]] = field(default_factory=list)  # chunk, text, hash
    chunks: int = 0
    written: int = 0
    deleted: int = 0

    def take(self, group: Sequence[Chunk]) -> None:
        """Mark ``group``'s chunks seen, queue those whose row hash differs from the stored
        one, and write every full batch."""
        stored = _seen(self.store, self.record.collection_id, [c.id for c in group])
        for chunk in group:
            text = embed_text(chunk, headings=self.headings)
            digest = row_hash(chunk, text)
            if stored.get(chunk.id) != digest:
                self.pending.append((chunk, text, digest))
        self.chunks += len(group)
        while len(self.pending) >= self.batch_rows:
            self.flush()

    def flush(self) -> None:
        """Embed and write the first ``batch_rows`` queued rows (in the load's transaction)."""
        part, self.pending = self.pending[: self.batch_rows], self.pending[self.batch_rows :]
        if part:
            vectors = self.embedder.embed([text for _, text, _ in part])
            chunks = [chunk for chunk, _, _ in part]
            upsert(self.store, self.record, chunks, vectors, [d for _, _, d in part])
            self.written += len(part)


def _seen(store: PgVectorStore, collection_id: int, ids: list[str]) -> dict[str, str]:
    """Add ``ids`` to ``docqa_seen``; the stored row hashes of those among them with
    postings."""
    with translated(store.url, f"reading the stored row hashes ({ids[0]!r}..)"):
        with store.conn.cursor() as cur, cur.copy(_COPY_SEEN) as copy:
            copy.set_types(["text"])
            for chunk_id in ids:
                copy.write_row((chunk_id,))
        rows = store.conn.execute(
            "SELECT chunk_id, row_hash FROM chunks WHERE collection_id = %s "
            "AND chunk_id = ANY(%s) AND kw_length IS NOT NULL",
            (collection_id, ids),
        ).fetchall()
    return dict(rows)


def _delete_missing(store: PgVectorStore, collection_id: int) -> int:
    """Delete the rows of chunks not in ``docqa_seen``, off the statistics first; how many."""
    with translated(store.url, "deleting rows of removed chunks"):
        params = {"cid": collection_id}
        store.conn.execute(kw.retract(kw.MISSING_ROWS), params)
        cur = store.conn.execute(
            "DELETE FROM chunks c WHERE c.collection_id = %(cid)s AND " + kw.MISSING_SQL, params
        )
    return int(cur.rowcount)


def _rolled_back(exc: DocqaError, load: _Load | None) -> DocqaError:
    """``exc`` saying that the rows written before it were rolled back with the load."""
    if load is None or not load.written:
        return exc  # nothing had been written: ``exc`` says all there is
    note = (
        f"the load was rolled back with the {load.written} rows it had written: collection "
        f"{load.record.name!r} is as it was"
    )
    text = str(exc)
    return type(exc)(text.replace(ROLLED_BACK, note) if ROLLED_BACK in text else f"{text}; {note}")


def _load(
    store: PgVectorStore,
    feed: ChunkFeed,
    embedder: Embedder,
    batch_rows: int,
    progress: Progress | None,
) -> _Load:
    """Write ``feed``'s chunks into the collection in one transaction (see the module)."""
    load = None
    try:
        with store.conn.transaction():
            record = ensure_collection(store, embedder, feed.settings)
            load = _Load(store, record, embedder, feed.settings.headings, batch_rows)
            with translated(store.url, "preparing the load"):
                store.conn.execute(_SEEN)
                store.conn.execute("TRUNCATE docqa_seen")
            for group in feed.groups(batch_rows, progress):
                load.take(group)
            while load.pending:
                load.flush()
            load.deleted = _delete_missing(store, record.collection_id)
    except DocqaError as exc:
        raise _rolled_back(exc, load) from exc
    return load


def _finish(store: PgVectorStore, load: _Load, hnsw: bool) -> None:
    """After the commit: the tables vacuumed and analyzed, and the HNSW index when missing."""
    done = (
        f"; the load is committed ({load.written} rows written, {load.deleted} deleted): "
        "run the command again to finish this step"
    )
    try:
        if load.written or load.deleted:
            with translated(store.url, "vacuuming the written tables"):
                # statistics for the planner, and the visibility map that lets keyword
                # search read the postings' index alone (an index-only scan); inside a
                # caller's transaction, where VACUUM cannot run, the statistics only
                verb = "VACUUM (ANALYZE)" if store.idle else "ANALYZE"
                store.conn.execute(f"{verb} chunks, postings, term_df")
        if hnsw:
            create_hnsw(store, load.record)
    except DocqaError as exc:
        raise type(exc)(f"{exc}{done}") from exc


def index_to_store(
    paths: Sequence[str | Path],
    store: PgVectorStore,
    settings: IndexSettings | None = None,
    *,
    batch_rows: int = BATCH_ROWS,
    progress: Progress | None = None,
    hnsw: bool = True,
) -> StoreReport:
    """Load ``paths`` and write them into ``store``'s collection (see the module docstring).

    ``progress`` is called as ``("files", done, total)`` after each file."""
    settings = settings or IndexSettings()
    _check_settings(settings, batch_rows)
    started = time.perf_counter()
    feed = ChunkFeed(paths, settings)
    embedder = settings.make_embedder()
    load = _load(store, feed, embedder, batch_rows, progress)
    _finish(store, load, hnsw)
    return StoreReport(
        where=store.where,
        collection=store.collection,
        chunks=load.chunks,
        upserted=load.written,
        unchanged=load.chunks - load.written,
        deleted=load.deleted,
        skipped=feed.report.skipped,
        embedder=embedder.name,
        seconds=time.perf_counter() - started,
        passed_over=passed_over(feed.others),
    )


def create_hnsw(store: PgVectorStore, record: CollectionRecord, *, memory: str = "1GB") -> None:
    """Create the collection's HNSW index if it is missing (``memory``: maintenance_work_mem
    for the build, so the graph is built in memory)."""
    with translated(store.url, "building the HNSW index"), store.conn.transaction():
        store.conn.execute("SELECT set_config('maintenance_work_mem', %s, true)", (memory,))
        store.conn.execute(q.hnsw_index(record.collection_id, record.dim))
