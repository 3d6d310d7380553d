"""The store's queries, built from a few fixed pieces (no user text is ever spliced in).

Every query filters in its WHERE clause: the collection (a literal, so the planner can match a
collection's partial HNSW index), the tenant when one is given (``c.tenant = %(tenant)s``) and
the allowed row ids when a mask is given (``c.row_id = ANY(%(rows)s)``). Parameters are bound
by name.

Exact dense search (``dense_candidates``) lets SQL find candidates, not the answer: pgvector
sums a dot product in its own float order, so its scores may differ from docqa's canonical
ones (``docqa.search.reference.canonical_scores``) in the last bits. It returns every row whose
pgvector score is within ``%(slack)s * M`` of the k-th best one (``M >= max ||row||``, the
collection's ``max_norm``), with its vector;
``docqa.stores.search`` rescores them with docqa's kernel (see ``dense_slack`` there for why
that window holds every row of the exact top k). Approximate search (``hnsw_query``) uses
``embedding::vector(dim)``, the expression the collection's HNSW index is built on, inside a
subquery that takes the index's order and limit; its hits and scores are pgvector's.

Keyword search (``keyword_query``) is Okapi BM25 over ``postings`` (``docqa.stores.postings``),
computed as ``docqa.keyword.BM25Index`` computes it: each posting's weight is
``(idf * (tf * (k1 + 1))) / (tf + k1 * ((1 - b) + (b * dl) / avgdl))`` in float8, one
correctly rounded IEEE operation at a time as NumPy does them; a row's weights are summed in
the order of ``%(terms)s`` (``sum(.. ORDER BY pos)``, float8 addition from the first weight:
the kernels' order, df ascending); the sum is rounded to float4 and the rows ordered by it
descending, then ``row_id``; only the first k of them are joined to their chunk columns.
Each posting holds its row's length, and the postings' primary key holds ``tf`` and
``length`` (schema version 4), so the scoring reads the index alone.
``idf`` per term, ``avgdl``, ``k1 + 1`` and ``1 - b`` come from Python (``BM25Index`` over the
collection's statistics), so no logarithm is taken in SQL. Scores are the file index's bit
for bit.
"""

from __future__ import annotations

from psycopg import sql

CHUNK_COLUMNS = (
    "row_id",
    "chunk_id",
    "section",
    "heading_path",
    "source",
    "position",
    "start_line",
    "end_line",
    "text",
    "content_hash",
    "metadata",
)
_COLS = sql.SQL(", ").join(sql.SQL("c.") + sql.Identifier(name) for name in CHUNK_COLUMNS)


def filters(collection_id: int, *, tenant: bool, rows: bool) -> sql.Composable:
    """The WHERE clause: collection, then tenant and row-id conditions when asked for."""
    parts: list[sql.Composable] = [
        sql.SQL("c.collection_id = {}").format(sql.Literal(collection_id))
    ]
    if tenant:
        parts.append(sql.SQL("c.tenant = %(tenant)s"))
    if rows:
        parts.append(sql.SQL("c.row_id = ANY(%(rows)s)"))
    return sql.SQL(" AND ").join(parts)


def dense_candidates(where: sql.Composable, collection_id: int) -> sql.Composed:
    """Chunk columns + ``embedding`` of every row whose pgvector inner product is at least
    the k-th best one minus ``slack * M``, by ``row_id``, the first ``%(limit)s`` of them
    (NULL: all). ``M``: the collection's ``max_norm``, an upper bound of every row's norm kept
    by each write (schema version 4), so no row's norm is computed here. The candidates are
    read from ``chunks`` by their ids (an array, so the planner looks them up one by one
    rather than joining a guess of thousands)."""
    return sql.SQL(
        "WITH s AS (SELECT c.row_id, -(c.embedding <#> %(q)s) AS score FROM chunks c "
        "WHERE {where}), "
        "cut AS (SELECT min(t.score) AS low FROM "
        "(SELECT score FROM s ORDER BY score DESC LIMIT %(k)s) t), "
        "cand AS (SELECT s.row_id FROM s, cut WHERE s.score >= cut.low - "
        "%(slack)s::float8 * (SELECT max_norm FROM collections WHERE collection_id = {cid}) "
        "ORDER BY s.row_id LIMIT %(limit)s) "
        "SELECT {cols}, c.embedding FROM chunks c "
        "WHERE c.row_id = ANY(ARRAY(SELECT row_id FROM cand)) ORDER BY c.row_id"
    ).format(cols=_COLS, where=where, cid=sql.Literal(collection_id))


def hnsw_query(where: sql.Composable, dim: int) -> sql.Composed:
    """Chunk columns + ``score`` through the collection's HNSW index (approximate)."""
    typed = sql.SQL("vector({})").format(sql.Literal(int(dim)))
    return sql.SQL(
        "SELECT * FROM (SELECT {cols}, -(c.embedding::{t} <#> %(q)s::{t}) AS score "
        "FROM chunks c WHERE {where} ORDER BY c.embedding::{t} <#> %(q)s::{t} LIMIT %(k)s) s "
        "ORDER BY s.score DESC, s.row_id"
    ).format(cols=_COLS, t=typed, where=where)


_WEIGHT = (
    "(qt.idf * (p.tf::float8 * %(k1p1)s::float8)) / (p.tf::float8 + %(k1)s::float8 * "
    "(%(omb)s::float8 + (%(b)s::float8 * p.length::float8) / %(avgdl)s::float8))"
)


def keyword_filters(collection_id: int, *, tenant: bool, rows: bool) -> sql.Composable:
    """The conditions on ``postings p`` beside its collection and term: the allowed row ids
    when a mask is given, the tenant's rows (read from ``chunks_tenant`` alone) when one is."""
    parts: list[sql.Composable] = [sql.SQL("TRUE")]
    if rows:
        parts.append(sql.SQL("p.row_id = ANY(%(rows)s)"))
    if tenant:
        parts.append(
            sql.SQL(
                "p.row_id IN (SELECT t.row_id FROM chunks t "
                "WHERE t.collection_id = {} AND t.tenant = %(tenant)s)"
            ).format(sql.Literal(collection_id))
        )
    return sql.SQL(" AND ").join(parts)


def keyword_query(where: sql.Composable) -> sql.Composed:
    """Chunk columns + ``score`` (BM25, float4 as float8) of the rows holding any of
    ``%(terms)s`` (int8 term hashes, in summing order, with ``%(idf)s``), best first;
    ``where``: ``keyword_filters``. Only the top k rows are read from ``chunks``."""
    return sql.SQL(
        "WITH qt AS (SELECT t.term, t.idf, t.pos FROM unnest(%(terms)s::int8[], "
        "%(idf)s::float8[]) WITH ORDINALITY AS t(term, idf, pos)), "
        "s AS (SELECT p.row_id, sum({weight} ORDER BY qt.pos) AS total FROM qt "
        "JOIN postings p ON p.collection_id = %(cid)s AND p.term = qt.term "
        "WHERE {where} GROUP BY p.row_id), "
        "top AS (SELECT s.row_id, s.total::float4::float8 AS score FROM s "
        "ORDER BY score DESC, s.row_id LIMIT %(k)s) "
        "SELECT {cols}, top.score FROM top JOIN chunks c ON c.row_id = top.row_id "
        "ORDER BY top.score DESC, c.row_id"
    ).format(weight=sql.SQL(_WEIGHT), cols=_COLS, where=where)


def hnsw_index(collection_id: int, dim: int) -> sql.Composed:
    """CREATE INDEX IF NOT EXISTS: the collection's partial HNSW index (inner product)."""
    return sql.SQL(
        "CREATE INDEX IF NOT EXISTS {name} ON chunks USING hnsw "
        "((embedding::vector({dim})) vector_ip_ops) WHERE collection_id = {cid}"
    ).format(
        name=sql.Identifier(f"chunks_hnsw_{collection_id}"),
        dim=sql.Literal(int(dim)),
        cid=sql.Literal(int(collection_id)),
    )
