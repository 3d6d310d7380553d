"""BM25 rows of a store: docqa's own tokens as postings, and the collection's statistics.

A row's keyword text is ``docqa.text.keyword_text`` of its chunk (the collection's
``headings`` and ``heading_weight``), tokenized by ``hash_tokens`` with the collection's
``BM25Config`` token settings: exactly the terms and lengths of a file index's BM25 row. Each
distinct term is a ``postings`` row ``(collection_id, term, row_id, tf, length)``, the term
its 64-bit hash stored as ``bigint`` (the same bits), ``length`` the row's token count (its
``chunks.kw_length``, repeated so that a search reads postings alone).

The statistics BM25 needs are per collection, over every tenant (a tenant only filters which
rows are searched, as in a file index): ``collections.n_docs`` and ``total_length`` and
``term_df.df``. They change in the same transaction as the rows: ``RETRACT`` takes a set of
rows' contributions off (and deletes their postings) before they are replaced or deleted,
``ADD`` adds the staged rows' after they are written. A term whose rows are all gone keeps a
``df = 0`` row, which readers skip (it scores as an unknown term, as in a file index).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from psycopg import sql

from docqa.keyword import BM25Config
from docqa.keyword.stats import CorpusStats
from docqa.text import hash_tokens, keyword_text
from docqa.text.sections import HEADING_WEIGHT
from docqa.types import Chunk

STAGE = (
    "CREATE TEMP TABLE IF NOT EXISTS docqa_stage_postings "
    "(chunk_id text, term int8, tf int4) ON COMMIT DELETE ROWS"
)
COPY = "COPY docqa_stage_postings (chunk_id, term, tf) FROM STDIN (FORMAT BINARY)"
COPY_TYPES = ("text", "int8", "int4")

_RETRACT = (
    "WITH gone AS (SELECT c.row_id, c.kw_length FROM chunks c WHERE c.collection_id = "
    "%(cid)s AND c.kw_length IS NOT NULL AND {cond}), "
    "dropped AS (DELETE FROM postings p USING gone WHERE p.collection_id = %(cid)s "
    "AND p.row_id = gone.row_id RETURNING p.term), "
    "terms AS (UPDATE term_df t SET df = t.df - x.n FROM (SELECT term, count(*) AS n "
    "FROM dropped GROUP BY term) x WHERE t.collection_id = %(cid)s AND t.term = x.term "
    "RETURNING 1) "
    "UPDATE collections SET n_docs = n_docs - (SELECT count(*) FROM gone), "
    "total_length = total_length - (SELECT coalesce(sum(kw_length), 0) FROM gone) "
    "WHERE collection_id = %(cid)s"
)
STAGED_ROWS = sql.SQL("c.chunk_id IN (SELECT chunk_id FROM docqa_stage)")
# the rows of chunks a load did not produce: ``docqa_seen`` holds the chunk ids it produced
MISSING_SQL = "NOT EXISTS (SELECT 1 FROM docqa_seen s WHERE s.chunk_id = c.chunk_id)"
MISSING_ROWS = sql.SQL(MISSING_SQL)

ADD = (
    "WITH added AS (INSERT INTO postings (collection_id, term, row_id, tf, length) "
    "SELECT %(cid)s, s.term, c.row_id, s.tf, c.kw_length FROM docqa_stage_postings s "
    "JOIN chunks c ON c.collection_id = %(cid)s AND c.chunk_id = s.chunk_id RETURNING term), "
    "terms AS (INSERT INTO term_df (collection_id, term, df) SELECT %(cid)s, term, count(*) "
    "FROM added GROUP BY term ORDER BY term ON CONFLICT (collection_id, term) "
    "DO UPDATE SET df = term_df.df + EXCLUDED.df RETURNING 1) "
    "UPDATE collections SET n_docs = n_docs + (SELECT count(*) FROM docqa_stage), "
    "total_length = total_length + (SELECT coalesce(sum(kw_length), 0) FROM docqa_stage) "
    "WHERE collection_id = %(cid)s"
)


def retract(cond: sql.Composable) -> sql.Composed:
    """The statement taking the rows matching ``cond`` (over ``chunks c``) out of the
    statistics and deleting their postings (parameter ``cid``)."""
    return sql.SQL(_RETRACT).format(cond=cond)


def read_config(conn: Any, collection_id: int) -> BM25Config:
    """The collection's BM25 config (``collections.bm25``; the defaults when unset)."""
    row = conn.execute(
        "SELECT bm25 FROM collections WHERE collection_id = %s", (collection_id,)
    ).fetchone()
    return BM25Config() if row is None or row[0] is None else BM25Config.from_dict(row[0])


def read_stats(
    conn: Any, collection_id: int, terms: np.ndarray | None = None
) -> CorpusStats | None:
    """The collection's BM25 statistics: its rows, their tokens, and the df of each term with
    ``df > 0`` among ``terms`` (uint64 hashes; None: every term), terms ascending as
    ``BM25Index.vocab``; None when the collection is gone."""
    counts = conn.execute(
        "SELECT n_docs, total_length FROM collections WHERE collection_id = %s", (collection_id,)
    ).fetchone()
    if counts is None:
        return None
    query = "SELECT term, df FROM term_df WHERE collection_id = %s AND df > 0"
    params: tuple[Any, ...] = (collection_id,)
    if terms is not None:
        query += " AND term = ANY(%s)"
        params += (np.asarray(terms, dtype=np.uint64).view(np.int64).tolist(),)
    found = conn.execute(query, params).fetchall()
    vocab = np.array([t for t, _ in found], dtype=np.int64).view(np.uint64)
    order = np.argsort(vocab)
    df = np.array([d for _, d in found], dtype=np.int64)[order]
    return CorpusStats(int(counts[0]), int(counts[1]), vocab[order], df)


def keyword_rows(
    chunks: Sequence[Chunk], settings: Mapping[str, Any], config: BM25Config
) -> tuple[list[int], list[tuple[str, int, int]]]:
    """``(lengths, postings)`` of ``chunks``' BM25 rows: each row's token count, and
    ``(chunk_id, term, tf)`` for each distinct term of each row (term: the hash as int64)."""
    texts = [
        keyword_text(
            c,
            headings=bool(settings.get("headings", True)),
            heading_weight=int(settings.get("heading_weight", HEADING_WEIGHT)),
        )
        for c in chunks
    ]
    hashed = hash_tokens(texts, **config.tokens.as_kwargs())
    lengths = np.diff(hashed.offsets).tolist()
    postings: list[tuple[str, int, int]] = []
    for chunk, start, stop in zip(chunks, hashed.offsets[:-1], hashed.offsets[1:], strict=True):
        terms, tf = np.unique(hashed.hashes[start:stop], return_counts=True)
        ids = terms.view(np.int64).tolist()
        postings.extend(zip([chunk.id] * len(ids), ids, tf.tolist(), strict=True))
    return [int(n) for n in lengths], postings
