"""A batch of rows: staged by COPY and upserted with their BM25 postings and statistics.

``upsert`` writes a batch in a transaction of its own, or within the transaction in progress
(``docqa.stores.load`` puts a whole load in one). A batch is COPYed
into temporary staging tables (emptied first), the rows it replaces are taken out of the BM25
statistics, then one INSERT .. ON CONFLICT writes it in the staged order and the statistics
take its rows in (``docqa.stores.postings``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import Any

import numpy as np

from docqa.errors import DimensionMismatch, InputError
from docqa.stores import postings as kw
from docqa.stores.connection import translated
from docqa.stores.pgvector import CollectionRecord, PgVectorStore
from docqa.types import Chunk

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


def upsert(
    store: PgVectorStore,
    record: CollectionRecord,
    chunks: Sequence[Chunk],
    vectors: np.ndarray,
    digests: Sequence[str] | None = None,
) -> None:
    """Write ``chunks`` with their ``vectors`` ``(len(chunks), dim)``, all finite, in one
    transaction, or within the transaction in progress (a load's); ``digests``: their row
    hashes, by default of ``chunk.text``."""
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    if vectors.shape != (len(chunks), record.dim):
        raise DimensionMismatch(
            f"{len(chunks)} chunks need vectors of shape ({len(chunks)}, {record.dim}) for "
            f"collection {record.name!r}, got {vectors.shape}"
        )
    bad = np.flatnonzero(~np.isfinite(vectors).all(axis=1))
    if bad.size:
        raise InputError(
            f"the vector of chunk {chunks[int(bad[0])].id!r} holds NaN or inf; re-embed it "
            "(nothing was written)"
        )
    digests = digests or [row_hash(c, c.text) for c in chunks]
    where = f"writing {len(chunks)} rows ({chunks[0].id!r}..)" if chunks else "writing no rows"
    with translated(store.url, where), _transaction(store):
        config = kw.read_config(store.conn, record.collection_id)
        lengths, postings = kw.keyword_rows(chunks, record.settings, config)
        rows = [
            _stage_row(c, d, v, n)
            for c, d, v, n in zip(chunks, digests, vectors, lengths, strict=True)
        ]
        _write_batch(store, record.collection_id, rows, postings)
        if len(chunks):
            store.conn.execute(
                "UPDATE collections SET max_norm = greatest(max_norm, %s) WHERE collection_id = %s",
                (norm_bound(vectors), record.collection_id),
            )


def _transaction(store: PgVectorStore) -> AbstractContextManager[object]:
    """A transaction of its own unless one is in progress (then nothing: a savepoint per
    batch would make each batch a subtransaction, and a load of more than 64 of them makes
    PostgreSQL look up every row's visibility in its subtransaction log, 1.9x the load's
    time at 100 MB)."""
    if store.idle:
        return store.conn.transaction()
    return nullcontext()


def norm_bound(vectors: np.ndarray) -> float:
    """An upper bound of every row's norm (``collections.max_norm``): the largest norm summed
    in float64 as pgvector's ``vector_norm`` sums it, raised by 2^-32 of itself to cover any
    difference in the order of that sum."""
    squares = np.square(vectors, dtype=np.float64).sum(axis=1)
    return float(np.sqrt(squares.max()) * (1.0 + 2.0**-32))


def _write_batch(
    store: PgVectorStore,
    collection_id: int,
    rows: Sequence[tuple[Any, ...]],
    postings: Sequence[tuple[str, int, int]],
) -> None:
    """COPY ``rows`` and their ``postings`` into the (emptied) staging tables, take the rows
    they replace out of the BM25 statistics, upsert them, add theirs."""
    cid = {"cid": collection_id}
    store.conn.execute(_STAGE)
    store.conn.execute(kw.STAGE)
    store.conn.execute("TRUNCATE docqa_stage, docqa_stage_postings")
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
