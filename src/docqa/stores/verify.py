"""``docqa verify --store``: whether a collection's rows, keyword rows and statistics agree.

Each check is one SQL statement over the collection that counts what disagrees; none writes.
``check`` returns the counts it read, the problems it found (each naming the table at fault)
and what to do about them: rows without postings (written by schema version 1), the
collection's row and token counts against its rows, each term's ``df`` in ``term_df`` against
the postings that hold it, each row's ``kw_length`` against its postings' term frequencies
and the length each posting holds, the collection's ``max_norm`` against its rows' norms,
vectors of another dimension or not finite, and a stored guard point that does not read. The
embedder is rebuilt from its record when the store opens the collection.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from docqa.errors import StoreError
from docqa.stores.connection import translated
from docqa.stores.pgvector import CollectionRecord, PgVectorStore

_COUNTS = (
    "SELECT count(*), count(*) FILTER (WHERE kw_length IS NULL), "
    "coalesce(sum(kw_length), 0), "
    "count(*) FILTER (WHERE vector_dims(embedding) <> %(dim)s), "
    "count(*) FILTER (WHERE NOT vector_norm(embedding) < 'Infinity'::float8) "
    "FROM chunks WHERE collection_id = %(cid)s"
)
_STATS = "SELECT n_docs, total_length FROM collections WHERE collection_id = %(cid)s"
_DF = (
    "SELECT count(*), count(*) FILTER (WHERE coalesce(t.df, 0) <> coalesce(p.n, 0)) FROM "
    "(SELECT term, df FROM term_df WHERE collection_id = %(cid)s) t FULL JOIN "
    "(SELECT term, count(*) AS n FROM postings WHERE collection_id = %(cid)s GROUP BY term) p "
    "ON p.term = t.term"
)
_NORM = (
    "SELECT max_norm, (SELECT coalesce(max(vector_norm(embedding)), 0) FROM chunks "
    "WHERE collection_id = %(cid)s AND vector_norm(embedding) < 'Infinity') "
    "FROM collections WHERE collection_id = %(cid)s"
)
_LENGTHS = (
    "SELECT count(*) FROM (SELECT c.row_id FROM chunks c LEFT JOIN postings p "
    "ON p.collection_id = c.collection_id AND p.row_id = c.row_id "
    "WHERE c.collection_id = %(cid)s AND c.kw_length IS NOT NULL "
    "GROUP BY c.row_id, c.kw_length HAVING coalesce(sum(p.tf), 0) <> c.kw_length "
    "OR bool_or(p.length <> c.kw_length)) x"
)


@dataclass(frozen=True)
class StoreCheck:
    """What ``check`` read (rows, terms), the problems it found (none: consistent), each
    naming the table at fault, and what to do about them."""

    rows: int
    terms: int
    problems: tuple[str, ...]
    advice: str


def _one(conn: Any, query: str, params: dict[str, Any]) -> tuple[int, ...]:
    row = conn.execute(query, params).fetchone()
    return tuple(int(v) for v in row) if row is not None else ()


def check(store: PgVectorStore) -> StoreCheck:
    """Run every check over ``store``'s collection (IndexNotFound when it has none)."""
    record, _ = store.open_collection()  # rebuilds the recorded embedder
    params = {"cid": record.collection_id, "dim": record.dim}
    with translated(store.url, f"checking collection {record.name!r}"):
        rows, bare, tokens, wrong_dim, not_finite = _one(store.conn, _COUNTS, params)
        n_docs, total = _one(store.conn, _STATS, params)
        terms, wrong_df = _one(store.conn, _DF, params)
        (wrong_length,) = _one(store.conn, _LENGTHS, params)
        bound, largest = store.conn.execute(_NORM, params).fetchone() or (0.0, 0.0)
    problems = []
    if (rows - bare, tokens) != (n_docs, total):
        problems.append(
            f"collections records {n_docs} rows of {total} tokens, the keyword rows hold "
            f"{rows - bare} rows of {tokens} tokens"
        )
    if wrong_df:
        problems.append(f"term_df: {wrong_df} of {terms} terms have a df other than their postings")
    if wrong_length:
        problems.append(
            f"chunks: {wrong_length} rows' kw_length differs from their postings' tf or length"
        )
    if wrong_dim or not_finite:
        problems.append(
            f"chunks: {wrong_dim} vectors are not {record.dim}-dim, {not_finite} not finite"
        )
    if not bound >= largest:
        problems.append(
            f"collections: max_norm {bound} is below the largest row norm {largest} (exact "
            "dense search could miss rows)"
        )
    try:
        store.guard_point(record)
    except StoreError:
        problems.append("collections: the stored guard point does not read (re-run calibrate)")
    if bare:
        problems.append(f"chunks: {bare} of {rows} rows have no postings (schema version 1)")
    return StoreCheck(rows, terms, tuple(problems), _advice(record, len(problems), bare > 0))


def _advice(record: CollectionRecord, problems: int, bare: bool) -> str:
    index = f"`docqa index PATHS --store URL --collection {record.name}`"
    if problems == 1 and bare:
        return f"run {index} to add them"
    return (
        f"delete the collection (DELETE FROM collections WHERE name = '{record.name}') and run "
        f"{index} again"
    )
