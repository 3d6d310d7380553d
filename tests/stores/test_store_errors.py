"""Bad input against a store: one clear line each, the password never shown."""

from __future__ import annotations

import socket
import sys
from typing import Any

import pytest
from store_helpers import PASSWORD, PASSWORD_USER, url_for

from docqa.errors import InputError, StoreUnavailable
from docqa.stores.connection import describe, scrub, store_url
from docqa.stores.pgvector import PgVectorStore


def _closed_port() -> int:
    """A port in 20000..20499 on 127.0.0.1 that nothing listens on (bound, then released)."""
    for port in range(20000, 20500):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    pytest.skip("no free port in 20000..20499")


def test_an_unreachable_database_is_one_line_naming_it() -> None:
    port = _closed_port()
    url = f"postgresql://bob:hunter2@127.0.0.1:{port}/library?connect_timeout=3"
    with pytest.raises(StoreUnavailable) as info:
        PgVectorStore(url)
    message = str(info.value)
    assert message.startswith(f"cannot connect to postgresql://bob:***@127.0.0.1:{port}/library")
    assert "hunter2" not in message and "\n" not in message
    assert "check that PostgreSQL is running" in message


def test_wrong_credentials_are_refused_without_echoing_them(pg_server: Any) -> None:
    url = url_for(pg_server, user=PASSWORD_USER, password="not-the-password")
    with pytest.raises(
        StoreUnavailable, match="refused the credentials of user 'docqa_pw'"
    ) as info:
        PgVectorStore(url)
    assert "not-the-password" not in str(info.value) and "\n" not in str(info.value)
    good = url_for(pg_server, user=PASSWORD_USER, password=PASSWORD)
    with PgVectorStore(good) as store:
        assert PASSWORD not in repr(store) and PASSWORD not in store.where
        assert ":***@" in store.where


def test_describe_redacts_every_spelling_of_a_password() -> None:
    assert describe("postgresql://bob:hunter2@db.internal:5433/lib") == (
        "postgresql://bob:***@db.internal:5433/lib"
    )
    assert describe("host=db user=bob password=hunter2 dbname=lib") == "postgresql://bob:***@db/lib"
    assert "hunter2" not in describe("postgresql://bob@db/lib?password=hunter2")
    assert (
        describe("postgresql://bob@/lib?host=/tmp/sock") == "postgresql://bob@/lib?host=/tmp/sock"
    )
    assert scrub("FATAL: x hunter2\n  y", "postgresql://bob:hunter2@db/lib") == "FATAL: x *** y"


def test_a_malformed_url_is_refused_without_quoting_it() -> None:
    with pytest.raises(InputError, match="not a valid PostgreSQL connection string") as info:
        describe("host=db password=hunter2 dbname")
    assert "hunter2" not in str(info.value)


def test_the_url_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCQA_STORE_URL", "postgresql://u@h/d")
    assert store_url(None) == "postgresql://u@h/d"
    assert store_url("postgresql://v@h/d") == "postgresql://v@h/d"
    monkeypatch.delenv("DOCQA_STORE_URL")
    with pytest.raises(InputError, match="DOCQA_STORE_URL"):
        store_url(None)


def test_without_the_driver_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "psycopg", None)  # import psycopg now raises ImportError
    with pytest.raises(InputError, match=r"pip install 'docqa\[postgres\]'"):
        PgVectorStore("postgresql://u@h/d")


def test_store_options_without_a_store_or_with_an_index_are_refused(tmp_path: Any) -> None:
    from docqa.cli.main import build_parser
    from docqa.cli.store import uses_store

    parse = build_parser().parse_args
    assert uses_store(parse(["search", "q", "--store"])) is True
    assert uses_store(parse(["search", "q"])) is False
    with pytest.raises(InputError, match="--index and --store"):
        uses_store(parse(["search", "q", "--store", "--index", str(tmp_path)]))
    for extra in (["--collection", "c"], ["--ef-search", "40"]):
        with pytest.raises(InputError, match=f"{extra[0]} applies to a database store"):
            uses_store(parse(["search", "q", *extra]))
    with pytest.raises(InputError, match="--collection applies"):
        uses_store(parse(["index", str(tmp_path), "--collection", "c"]))


@pytest.mark.parametrize(
    ("extra", "flag"),
    [(["--storage", "int8"], "--storage int8"), (["--shard-rows", "5"], "--shard-rows"),
     (["--ray"], "--ray")],
)  # fmt: skip
def test_file_index_options_with_a_store_are_refused(
    tmp_path: Any, extra: list[str], flag: str
) -> None:
    from docqa.cli.main import build_parser
    from docqa.cli.store import uses_store

    args = build_parser().parse_args(["index", str(tmp_path), "--store", *extra])
    with pytest.raises(InputError, match=f"{flag} applies to a file index; drop it with --store"):
        uses_store(args)
    assert uses_store(build_parser().parse_args(["index", str(tmp_path), "--store"])) is True
