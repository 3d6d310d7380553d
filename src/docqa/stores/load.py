"""Write a collection: load, chunk and embed with the file index's code, then upsert by batch.

``index_to_store`` loads and chunks with ``docqa.text`` (tenants from folders as the file index does), builds the texts with
``embed_text`` and the embedder with ``IndexSettings.make_embedder`` (the same calls as
``docqa.build``), then compares each chunk's row hash (its text, heading path, lines, metadata
and embedded text) with the stored one: only new or changed chunks are embedded and upserted,
``batch_rows`` a transaction (COPY into temporary tables, then one INSERT .. ON CONFLICT), so a
failed batch leaves the table as it was before it. The same transaction writes the rows' BM25
postings and keeps the collection's BM25 statistics exact (``docqa.stores.postings``). Rows of
chunks no longer produced (removed files, shorter documents) are deleted, and their statistics
taken off, in one last transaction. New rows take row ids in the chunks' order, so a first
load numbers its rows as the file index does and ties break alike; a row rewritten later keeps
its id, and a chunk added later takes the next one (a file index rebuilt then would place it
among its file's neighbours). A row without postings (written by a store of schema
version 1) counts as changed, so loading again adds them. The first load creates the
collection's HNSW index; later upserts keep it current.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from docqa.build import IndexSettings, passed_over
from docqa.embed.protocol import Embedder
from docqa.errors import DimensionMismatch, InputError
from docqa.keyword import BM25Config
from docqa.stores import postings as kw
from docqa.stores import sql as q
from docqa.stores.connection import translated
from docqa.stores.pgvector import CollectionRecord, PgVectorStore
from docqa.tenants import folder_tenant
from docqa.text import SkippedFile, chunk_document, embed_text, load_paths
from docqa.types import Chunk

Progress = Callable[[str, int, int], None]  # (stage, done, total)
BATCH_ROWS = 1000

_STAGE_COLUMNS = (
    ("chunk_id", "text"),
    ("section", "text"),
    ("heading_path", "text[]"),
    ("title", "text"),
    ("source", "text"),
    ("position", "int4"),
    ("start_line", "int4"),
    ("end_line", "int4"),
    ("page", "int4"),
    ("tenant", "text"),
    ("content_hash", "text"),
    ("row_hash", "text"),
    ("metadata", "jsonb"),
    ("text", "text"),
    ("embedding", "vector"),
    ("kw_length", "int4"),
)
_NAMES = ", ".join(name for name, _ in _STAGE_COLUMNS)
# ``ord``: each staged row's place in the batch. New rows take their row ids in that order
# (``ORDER BY ord``): a scan of the staging table may return rows in another order (a row
# placed on an earlier page with room), and row ids break ties in the canonical order.
_STAGE = (
    "CREATE TEMP TABLE IF NOT EXISTS docqa_stage (ord int4, "
    + ", ".join(f"{n} {t}" for n, t in _STAGE_COLUMNS)
    + ") ON COMMIT DELETE ROWS"
)
_COPY = f"COPY docqa_stage (ord, {_NAMES}) FROM STDIN (FORMAT BINARY)"
_COPY_TYPES = ["int4", *(t for _, t in _STAGE_COLUMNS)]
_UPSERT = (
    f"INSERT INTO chunks (collection_id, {_NAMES}) SELECT %s, {_NAMES} FROM docqa_stage "
    "ORDER BY ord ON CONFLICT (collection_id, chunk_id) DO UPDATE SET "
    + ", ".join(f"{n} = EXCLUDED.{n}" for n, _ in _STAGE_COLUMNS[1:])
)


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


def _jsonable(metadata: Any) -> dict[str, Any]:
    """Chunk metadata as plain JSON (dates and other YAML scalars become strings)."""
    loaded: dict[str, Any] = json.loads(json.dumps(dict(metadata), default=str, sort_keys=True))
    return loaded


def row_hash(chunk: Chunk, text: str) -> str:
    """sha256 of everything a row stores but its vector (``text`` is the embedded text)."""
    fields = [chunk.id, chunk.section, list(chunk.heading_path), chunk.source, chunk.position]
    fields += [chunk.start_line, chunk.end_line, chunk.content_hash, _jsonable(chunk.metadata)]
    fields.append(hashlib.sha256(text.encode("utf-8")).hexdigest())
    return hashlib.sha256(json.dumps(fields, sort_keys=True).encode("utf-8")).hexdigest()


def _optional_str(value: Any) -> str | None:
    return None if value is None else str(value)


def _page(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _stage_row(chunk: Chunk, digest: str, vector: np.ndarray, length: int) -> tuple[Any, ...]:
    from psycopg.types.json import Jsonb

    meta = chunk.metadata
    return (
        chunk.id,
        chunk.section,
        list(chunk.heading_path),
        chunk.title,
        chunk.source,
        chunk.position,
        chunk.start_line,
        chunk.end_line,
        _page(meta.get("page")),
        _optional_str(meta.get("tenant")),
        chunk.content_hash,
        digest,
        Jsonb(_jsonable(meta)),
        chunk.text,
        vector,
        length,
    )


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


def upsert(
    store: PgVectorStore,
    record: CollectionRecord,
    chunks: Sequence[Chunk],
    vectors: np.ndarray,
    digests: Sequence[str] | None = None,
) -> None:
    """Write ``chunks`` with their ``vectors`` ``(len(chunks), dim)`` in one transaction
    (``digests``: their row hashes, by default of ``chunk.text``)."""
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    if vectors.shape != (len(chunks), record.dim):
        raise DimensionMismatch(
            f"{len(chunks)} chunks need vectors of shape ({len(chunks)}, {record.dim}) for "
            f"collection {record.name!r}, got {vectors.shape}"
        )
    digests = digests or [row_hash(c, c.text) for c in chunks]
    where = f"writing {len(chunks)} rows ({chunks[0].id!r}..)" if chunks else "writing no rows"
    with translated(store.url, where):
        config = kw.read_config(store.conn, record.collection_id)
        lengths, postings = kw.keyword_rows(chunks, record.settings, config)
        rows = [
            _stage_row(c, d, v, n)
            for c, d, v, n in zip(chunks, digests, vectors, lengths, strict=True)
        ]
        _write_batch(store, record.collection_id, rows, postings)


def _write_batch(
    store: PgVectorStore,
    collection_id: int,
    rows: Sequence[tuple[Any, ...]],
    postings: Sequence[tuple[str, int, int]],
) -> None:
    """One transaction: COPY ``rows`` and their ``postings`` into the staging tables, take
    the rows they replace out of the BM25 statistics, upsert them, add theirs."""
    cid = {"cid": collection_id}
    with store.conn.transaction():
        store.conn.execute(_STAGE)
        store.conn.execute(kw.STAGE)
        with store.conn.cursor() as cur:
            with cur.copy(_COPY) as copy:
                copy.set_types(_COPY_TYPES)
                for place, row in enumerate(rows):
                    copy.write_row((place, *row))
            with cur.copy(kw.COPY) as copy:
                copy.set_types(list(kw.COPY_TYPES))
                for posting in postings:
                    copy.write_row(posting)
            cur.execute(kw.retract(kw.STAGED_ROWS), cid)
            cur.execute(_UPSERT, (collection_id,))
            cur.execute(kw.ADD, cid)


def _check_settings(settings: IndexSettings, batch_rows: int) -> None:
    if settings.embedder != "hashing":
        raise InputError(
            f"the pgvector store takes the hashing embedder, not {settings.embedder!r} (a fitted "
            "embedder depends on the whole collection); use --embedder hashing"
        )
    if isinstance(batch_rows, bool) or not isinstance(batch_rows, int) or batch_rows < 1:
        raise InputError(f"batch_rows must be an int >= 1, got {batch_rows!r}")


def _write_changed(
    store: PgVectorStore,
    record: CollectionRecord,
    embedder: Embedder,
    chunks: Sequence[Chunk],
    texts: Sequence[str],
    batch_rows: int,
    progress: Progress | None,
) -> int:
    """Embed and upsert the chunks whose row hash differs from the stored one; how many."""
    stored = _stored_hashes(store, record.collection_id)
    digests = [row_hash(c, t) for c, t in zip(chunks, texts, strict=True)]
    todo = [
        i for i, (c, d) in enumerate(zip(chunks, digests, strict=True)) if stored.get(c.id) != d
    ]
    for start in range(0, len(todo), batch_rows):
        part = todo[start : start + batch_rows]
        vectors = embedder.embed([texts[i] for i in part])
        upsert(store, record, [chunks[i] for i in part], vectors, [digests[i] for i in part])
        if progress:
            progress("write", start + len(part), len(todo))
    return len(todo)


def index_to_store(
    paths: Sequence[str | Path],
    store: PgVectorStore,
    settings: IndexSettings | None = None,
    *,
    batch_rows: int = BATCH_ROWS,
    progress: Progress | None = None,
    hnsw: bool = True,
) -> StoreReport:
    """Load ``paths`` and write them into ``store``'s collection (see the module docstring)."""
    settings = settings or IndexSettings()
    _check_settings(settings, batch_rows)
    started = time.perf_counter()
    others: Counter[str] = Counter()
    documents, report = load_paths(paths, others)
    if settings.tenant_from_folder:
        documents = [folder_tenant(d) for d in documents]
    chunks = [
        c
        for d in documents
        for c in chunk_document(d, max_words=settings.max_words, overlap=settings.overlap)
    ]
    if not chunks:
        raise InputError(f"no text to index in {', '.join(map(str, paths))}")
    texts = [embed_text(c, headings=settings.headings) for c in chunks]
    embedder = settings.make_embedder()
    record = ensure_collection(store, embedder, settings)
    written = _write_changed(store, record, embedder, chunks, texts, batch_rows, progress)
    deleted = _delete_missing(store, record.collection_id, [c.id for c in chunks])
    if written or deleted:
        with translated(store.url, "analyzing the written tables"):
            store.conn.execute("ANALYZE chunks, postings, term_df")  # plans for BM25's joins
    if hnsw:
        create_hnsw(store, record)
    return StoreReport(
        where=store.where,
        collection=store.collection,
        chunks=len(chunks),
        upserted=written,
        unchanged=len(chunks) - written,
        deleted=deleted,
        skipped=report.skipped,
        embedder=embedder.name,
        seconds=time.perf_counter() - started,
        passed_over=passed_over(others),
    )


def _stored_hashes(store: PgVectorStore, collection_id: int) -> dict[str, str]:
    with translated(store.url, "reading the stored row hashes"):
        rows = store.conn.execute(
            "SELECT chunk_id, row_hash FROM chunks WHERE collection_id = %s "
            "AND kw_length IS NOT NULL",
            (collection_id,),
        ).fetchall()
    return dict(rows)


def _delete_missing(store: PgVectorStore, collection_id: int, keep: list[str]) -> int:
    with translated(store.url, "deleting rows of removed chunks"), store.conn.transaction():
        params = {"cid": collection_id, "keep": keep}
        store.conn.execute(kw.retract(kw.MISSING_ROWS), params)
        cur = store.conn.execute(
            "DELETE FROM chunks c WHERE c.collection_id = %(cid)s AND " + kw.MISSING_SQL, params
        )
    return int(cur.rowcount)


def create_hnsw(store: PgVectorStore, record: CollectionRecord, *, memory: str = "1GB") -> None:
    """Create the collection's HNSW index if it is missing (``memory``: maintenance_work_mem
    for the build, so the graph is built in memory)."""
    with translated(store.url, "building the HNSW index"), store.conn.transaction():
        store.conn.execute("SELECT set_config('maintenance_work_mem', %s, true)", (memory,))
        store.conn.execute(q.hnsw_index(record.collection_id, record.dim))
