"""The store's queries, built from a few fixed pieces (no user text is ever spliced in).

Every query filters in its WHERE clause: the collection (a literal, so the planner can match a
collection's partial HNSW index), the tenant when one is given (``c.tenant = %(tenant)s``) and
the allowed row ids when a mask is given (``c.row_id = ANY(%(rows)s)``). Parameters are bound
by name: ``q`` (the query vector), ``k``, ``fetch`` (hybrid's per-side depth), ``question``,
``tenant``, ``rows``, ``rrf_k``.

Orders are canonical: score descending, then ``row_id`` ascending. Dense scores are inner
products, ``-(embedding <#> q)``; exact dense search orders by that selected score over the
bare column (no index matches it, so it always scans, one distance per row); approximate
search uses ``embedding::vector(dim)``, the expression the collection's HNSW index is built
on, inside a subquery that takes the index's order and limit (its ties at the cut are the
index's, as an approximate search may). Keyword scores are
``ts_rank_cd(tsv, query, 32)`` (normalisation 32: rank / (rank + 1), so below 1) for the OR of
the question's lexemes. Hybrid is RRF of both lists in one statement, in float8 exactly as
``docqa.retrieve.fusion`` computes it, ordered by fused score, best rank, row id.
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
_ROW_AND_SCORE = sql.SQL("c.row_id")
# OR of the question's lexemes: plainto_tsquery ANDs them; its text form is valid tsquery input
TSQUERY = sql.SQL(
    "replace(plainto_tsquery('english'::regconfig, %(question)s)::text, ' & ', ' | ')::tsquery"
)


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


def _dense(
    where: sql.Composable, dim: int | None, limit: str, cols: sql.Composable
) -> sql.Composed:
    if dim is None:
        # ordered by the selected score: one distance per row (no index matches it anyway)
        return sql.SQL(
            "SELECT {cols}, -(c.embedding <#> %(q)s) AS score FROM chunks c WHERE {where} "
            "ORDER BY score DESC, c.row_id LIMIT {limit}"
        ).format(cols=cols, where=where, limit=sql.SQL(limit))
    typed = sql.SQL("vector({})").format(sql.Literal(int(dim)))
    return sql.SQL(
        "SELECT * FROM (SELECT {cols}, -(c.embedding::{t} <#> %(q)s::{t}) AS score "
        "FROM chunks c WHERE {where} ORDER BY c.embedding::{t} <#> %(q)s::{t} LIMIT {limit}) s "
        "ORDER BY s.score DESC, s.row_id"
    ).format(cols=cols, t=typed, where=where, limit=sql.SQL(limit))


def _keyword(where: sql.Composable, limit: str, cols: sql.Composable) -> sql.Composed:
    return sql.SQL(
        "SELECT {cols}, ts_rank_cd(c.tsv, kq.query, 32)::float8 AS score "
        "FROM chunks c, (SELECT {tsquery} AS query) kq WHERE {where} AND c.tsv @@ kq.query "
        "ORDER BY score DESC, c.row_id LIMIT {limit}"
    ).format(cols=cols, tsquery=TSQUERY, where=where, limit=sql.SQL(limit))


def dense_query(where: sql.Composable, dim: int | None) -> sql.Composed:
    """Chunk columns + ``score``: exact when ``dim`` is None, else through the HNSW index."""
    return _dense(where, dim, "%(k)s", _COLS)


def keyword_query(where: sql.Composable) -> sql.Composed:
    """Chunk columns + ``score`` (ts_rank_cd) of rows matching any lexeme of the question."""
    return _keyword(where, "%(k)s", _COLS)


def hybrid_query(where: sql.Composable, dim: int | None) -> sql.Composed:
    """Chunk columns + ``rrf``, ``d_score``, ``d_rank``, ``k_score``, ``k_rank`` (NULL where a
    side did not find the row), in one statement."""
    dense = _dense(where, dim, "%(fetch)s", _ROW_AND_SCORE)
    keyword = _keyword(where, "%(fetch)s", _ROW_AND_SCORE)
    return sql.SQL(
        "WITH d AS (SELECT x.row_id, x.score, "
        "row_number() OVER (ORDER BY x.score DESC, x.row_id) AS rank FROM ({dense}) x), "
        "kw AS (SELECT y.row_id, y.score, "
        "row_number() OVER (ORDER BY y.score DESC, y.row_id) AS rank FROM ({keyword}) y), "
        "f AS (SELECT row_id, d.score AS d_score, d.rank AS d_rank, "
        "kw.score AS k_score, kw.rank AS k_rank, "
        "COALESCE(1.0::float8 / (%(rrf_k)s::float8 + d.rank), 0) "
        "+ COALESCE(1.0::float8 / (%(rrf_k)s::float8 + kw.rank), 0) AS rrf, "
        "LEAST(d.rank, kw.rank) AS best_rank FROM d FULL JOIN kw USING (row_id)) "
        "SELECT {cols}, f.rrf, f.d_score, f.d_rank, f.k_score, f.k_rank "
        "FROM f JOIN chunks c ON c.row_id = f.row_id "
        "ORDER BY f.rrf DESC, f.best_rank, f.row_id LIMIT %(k)s"
    ).format(dense=dense, keyword=keyword, cols=_COLS)


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
