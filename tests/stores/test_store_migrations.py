"""Schema migrations: applied once, idempotent, newer schema refused, pgvector missing."""

from __future__ import annotations

from typing import Any

import pytest
from store_helpers import PLAIN_USER, drop_database, new_database, psycopg, url_for

from docqa.errors import IndexVersionError, StoreError
from docqa.stores.migrations import LATEST, MIGRATIONS
from docqa.stores.pgvector import PgVectorStore


def _tables(url: str) -> set[str]:
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public'"
        ).fetchall()
    return {name for (name,) in rows}


def test_migrations_apply_once_and_twice_is_a_no_op(db_url: str) -> None:
    assert _tables(db_url) == set()
    PgVectorStore(db_url).close()
    assert _tables(db_url) == {"docqa_schema", "collections", "chunks", "postings", "term_df"}
    PgVectorStore(db_url).close()
    with psycopg.connect(db_url) as conn:
        versions = [v for (v,) in conn.execute("SELECT version FROM docqa_schema ORDER BY 1")]
        ext = conn.execute("SELECT count(*) FROM pg_extension WHERE extname = 'vector'").fetchone()
    assert versions == [v for v, _ in MIGRATIONS] == list(range(1, LATEST + 1))
    assert ext == (1,)


def test_a_newer_schema_is_refused_and_left_alone(db_url: str) -> None:
    PgVectorStore(db_url).close()
    with psycopg.connect(db_url) as conn:
        conn.execute("INSERT INTO docqa_schema (version) VALUES (%s)", (LATEST + 1,))
    with pytest.raises(IndexVersionError, match=f"version {LATEST + 1}, newer than this docqa"):
        PgVectorStore(db_url)
    with psycopg.connect(db_url) as conn:
        (count,) = conn.execute("SELECT count(*) FROM docqa_schema").fetchone() or (0,)
    assert count == LATEST + 1


def test_missing_pgvector_that_the_user_may_not_enable(pg_server: Any) -> None:
    name = new_database(pg_server, owner=PLAIN_USER)
    try:
        url = url_for(pg_server, dbname=name, user=PLAIN_USER)
        with pytest.raises(StoreError, match="CREATE EXTENSION vector") as info:
            PgVectorStore(url)
        assert "\n" not in str(info.value)
        assert _tables(url_for(pg_server, dbname=name)) == set()  # rolled back: nothing created
    finally:
        drop_database(pg_server, name)


def test_a_non_superuser_works_once_pgvector_is_enabled(pg_server: Any) -> None:
    name = new_database(pg_server, owner=PLAIN_USER)
    try:
        with psycopg.connect(url_for(pg_server, dbname=name), autocommit=True) as conn:
            conn.execute("CREATE EXTENSION vector")
        PgVectorStore(url_for(pg_server, dbname=name, user=PLAIN_USER)).close()
        assert "chunks" in _tables(url_for(pg_server, dbname=name))
    finally:
        drop_database(pg_server, name)
