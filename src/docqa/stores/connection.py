"""Connecting to PostgreSQL: the URL (never shown with its password) and error translation.

Every psycopg error that reaches a caller is turned into one line naming the database (as
``describe`` prints it: user, host, port and database, the password replaced by ``***``) and
what to do next. The driver is imported inside the functions, so importing this module is free.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from docqa.errors import InputError, StoreError, StoreUnavailable

if TYPE_CHECKING:
    import psycopg

ENV_URL = "DOCQA_STORE_URL"
INSTALL = "install the extra: pip install 'docqa[postgres]'"
CONNECT_TIMEOUT = 10  # seconds, unless the URL sets connect_timeout
# SQLSTATE classes: 08 connection exception, 57P0x operator intervention (terminated backend)
_LOST_STATES = ("08", "57P01", "57P02", "57P03")
_AUTH_STATES = ("28000", "28P01")
ROLLED_BACK = "that step was rolled back, nothing of it was written"


def store_url(url: str | None) -> str:
    """``url``, else ``$DOCQA_STORE_URL``; InputError when neither is set."""
    chosen = url or os.environ.get(ENV_URL, "")
    if not chosen:
        raise InputError(
            f"no database given; pass --store postgresql://USER@HOST:PORT/DBNAME or set {ENV_URL}"
        )
    return chosen


def _driver() -> Any:
    try:
        import psycopg
    except ImportError:
        raise InputError(f"the pgvector store needs psycopg 3 and pgvector; {INSTALL}") from None
    return psycopg


def url_parts(url: str) -> dict[str, str]:
    """The connection parameters of ``url`` (a URI or ``key=value`` string)."""
    psycopg = _driver()
    try:
        parts: dict[str, str] = psycopg.conninfo.conninfo_to_dict(url)
    except psycopg.ProgrammingError:
        # the driver's message may quote the string, password included: do not pass it on
        raise InputError(
            "the store URL is not a valid PostgreSQL connection string; expected "
            "postgresql://USER@HOST:PORT/DBNAME (password in PGPASSWORD or ~/.pgpass)"
        ) from None
    return parts


def describe(url: str) -> str:
    """``url`` fit to print: ``postgresql://user:***@host:port/db`` (never the password)."""
    parts = url_parts(url)
    user = parts.get("user", "")
    secret = ":***" if parts.get("password") else ""
    host, port = parts.get("host", ""), parts.get("port", "")
    db = parts.get("dbname", "")
    at = f"{user}{secret}@" if user or secret else ""
    if host.startswith("/"):
        return f"postgresql://{at}/{db}?host={host}" + (f"&port={port}" if port else "")
    return f"postgresql://{at}{host}{':' + port if port else ''}/{db}"


def scrub(text: str, url: str) -> str:
    """``text`` on one line, with the URL's password (if any) replaced by ``***``."""
    secret = url_parts(url).get("password")
    line = " ".join(part.strip() for part in text.strip().splitlines() if part.strip())
    return line.replace(secret, "***") if secret else line


def _reason(exc: BaseException, url: str) -> str:
    text = scrub(str(exc), url)
    # libpq: 'connection failed: connection to server ... failed: FATAL:  reason'
    return text.rsplit("FATAL:", 1)[-1].strip() if "FATAL:" in text else text


def connect(url: str) -> psycopg.Connection[Any]:
    """An autocommit connection to ``url``; StoreUnavailable (one line) when that fails."""
    driver = _driver()
    parts = url_parts(url)
    timeout = {} if "connect_timeout" in parts else {"connect_timeout": CONNECT_TIMEOUT}
    try:
        conn: psycopg.Connection[Any] = driver.connect(url, autocommit=True, **timeout)
    except driver.OperationalError as exc:
        raise _connect_error(exc, url) from None
    return conn


def _connect_error(exc: BaseException, url: str) -> StoreUnavailable:
    where, reason = describe(url), _reason(exc, url)
    state = getattr(exc, "sqlstate", None) or ""
    if state in _AUTH_STATES or "authentication failed" in reason or "password" in reason:
        user = url_parts(url).get("user", "(default user)")
        return StoreUnavailable(
            f"{where} refused the credentials of user {user!r} ({reason}); check the user and "
            f"password in {ENV_URL} or --store, PGPASSWORD or ~/.pgpass"
        )
    return StoreUnavailable(
        f"cannot connect to {where} ({reason}); check that PostgreSQL is running there and "
        "that the host, port and database name are right"
    )


@contextmanager
def translated(url: str, doing: str) -> Iterator[None]:
    """Turn a psycopg error raised inside into a one-line StoreError / StoreUnavailable."""
    psycopg = _driver()
    try:
        yield
    except psycopg.Error as exc:
        where, reason = describe(url), _reason(exc, url)
        state = getattr(exc, "sqlstate", None) or ""
        if isinstance(exc, psycopg.OperationalError) and (
            not state or state.startswith(_LOST_STATES)
        ):
            raise StoreUnavailable(
                f"lost the connection to {where} while {doing} ({reason}); {ROLLED_BACK}; "
                "run the command again"
            ) from None
        raise StoreError(f"{where} refused {doing}: {reason}") from None
