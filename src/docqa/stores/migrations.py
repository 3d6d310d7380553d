"""The store's schema as numbered migrations, applied on connect (idempotent, in a transaction).

``docqa_schema`` records every applied version. ``migrate`` takes a transaction-scoped advisory
lock (two processes connecting at once apply each migration once), refuses a database whose
schema is newer than this code (``IndexVersionError``: upgrade docqa), enables pgvector when it
is missing, and applies the versions not yet recorded, all in one transaction: a failure
leaves the schema as it was.

Chunks of every collection share one ``chunks`` table (their BM25 postings the ``postings``
table, the collections' term statistics ``term_df``, see ``docqa.stores.postings``; a
collection's calibrated guard point ``collections.guard``); ``embedding`` is an unsized ``vector``
because collections differ in dimension. Each collection's HNSW index is a partial expression
index over ``embedding::vector(dim)`` (see ``docqa.stores.sql``), created after its first load.
"""

from __future__ import annotations

from typing import Any

from docqa.errors import IndexVersionError, StoreError

LOCK_KEY = 0x646F6371  # "docq": the advisory lock serialising migrations
MIN_PGVECTOR = (0, 5)  # HNSW arrived in pgvector 0.5

_V1 = (
    """CREATE TABLE collections (
        collection_id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        name text NOT NULL UNIQUE,
        embedder_name text NOT NULL,
        embedder_config jsonb NOT NULL,
        dim integer NOT NULL CHECK (dim > 0),
        settings jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
    )""",
    """CREATE TABLE chunks (
        row_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        collection_id integer NOT NULL REFERENCES collections ON DELETE CASCADE,
        chunk_id text NOT NULL,
        section text NOT NULL,
        heading_path text[] NOT NULL,
        title text NOT NULL,
        source text NOT NULL,
        position integer NOT NULL,
        start_line integer NOT NULL,
        end_line integer NOT NULL,
        page integer,
        tenant text,
        content_hash text NOT NULL,
        row_hash text NOT NULL,
        metadata jsonb NOT NULL,
        text text NOT NULL,
        embedding vector NOT NULL,
        tsv tsvector GENERATED ALWAYS AS
            (to_tsvector('english'::regconfig, title || ' ' || text)) STORED,
        UNIQUE (collection_id, chunk_id)
    )""",
    # vectors stay in the row, uncompressed: an exact scan then never detoasts (long texts
    # are moved out instead); measured 5x faster exact scans on the pydocs chunks
    "ALTER TABLE chunks ALTER COLUMN embedding SET STORAGE PLAIN",
    "CREATE INDEX chunks_tenant ON chunks (collection_id, tenant)",
    "CREATE INDEX chunks_source ON chunks (collection_id, source)",
    "CREATE INDEX chunks_tsv ON chunks USING gin (tsv)",
)

# BM25 in SQL: each row's docqa tokens (``hash_tokens`` of ``keyword_text``) as postings of
# 64-bit term hashes (stored as bigint, the same bits), its token count, and the collection's
# statistics (rows, tokens, df per term) over every tenant, kept by each load's transaction.
# ``kw_length`` NULL: a row written before version 2, without postings (the next load adds them)
_V2 = (
    "ALTER TABLE chunks DROP COLUMN tsv",  # its text search is replaced by BM25 (and its index)
    (
        "ALTER TABLE collections ADD COLUMN bm25 jsonb, "
        "ADD COLUMN n_docs bigint NOT NULL DEFAULT 0 CHECK (n_docs >= 0), "
        "ADD COLUMN total_length bigint NOT NULL DEFAULT 0 CHECK (total_length >= 0)"
    ),
    "ALTER TABLE chunks ADD COLUMN kw_length integer CHECK (kw_length >= 0)",
    """CREATE TABLE postings (
        collection_id integer NOT NULL,
        term bigint NOT NULL,
        row_id bigint NOT NULL REFERENCES chunks ON DELETE CASCADE,
        tf integer NOT NULL CHECK (tf > 0),
        PRIMARY KEY (collection_id, term, row_id)
    )""",
    "CREATE INDEX postings_row ON postings (row_id)",
    """CREATE TABLE term_df (
        collection_id integer NOT NULL REFERENCES collections ON DELETE CASCADE,
        term bigint NOT NULL,
        df bigint NOT NULL CHECK (df >= 0),
        PRIMARY KEY (collection_id, term)
    )""",
)

# The guard point ``docqa calibrate --store`` fits for a collection (a ``GuardConfig`` as
# JSON, NULL: the defaults) and the record of that calibration: what a file index keeps in its
# manifest's ``meta["guard"]`` and ``meta["guard_calibration"]``
_V3 = ("ALTER TABLE collections ADD COLUMN guard jsonb, ADD COLUMN guard_calibration jsonb",)

# Searches that read less. Keyword search without reading ``chunks``: each posting carries
# its row's token count (``length``, the row's ``kw_length``, written and deleted with it),
# and the primary key's index holds ``tf`` and ``length`` too, so BM25 over a term's postings
# is an index-only scan (10x faster than fetching every posting's row length from
# ``chunks``). A tenant's rows are found in ``chunks_tenant`` alone (it holds ``row_id``).
# Existing postings take their rows' lengths once, here.
_V4 = (
    "ALTER TABLE postings ADD COLUMN length integer",
    "UPDATE postings p SET length = c.kw_length FROM chunks c WHERE c.row_id = p.row_id",
    (
        "ALTER TABLE postings ALTER COLUMN length SET NOT NULL, "
        "ADD CONSTRAINT postings_length CHECK (length > 0)"
    ),
    (
        "ALTER TABLE postings DROP CONSTRAINT postings_pkey, ADD CONSTRAINT postings_pkey "
        "PRIMARY KEY (collection_id, term, row_id) INCLUDE (tf, length)"
    ),
    "DROP INDEX chunks_tenant",
    "CREATE INDEX chunks_tenant ON chunks (collection_id, tenant) INCLUDE (row_id)",
    # exact dense search's bound on row norms, kept by every write (never lowered by a delete,
    # so it stays an upper bound), instead of every row's norm computed by every search
    "ALTER TABLE collections ADD COLUMN max_norm float8 NOT NULL DEFAULT 0 CHECK (max_norm >= 0)",
    (
        "UPDATE collections c SET max_norm = coalesce((SELECT max(vector_norm(embedding)) "
        "FROM chunks WHERE collection_id = c.collection_id "
        "AND vector_norm(embedding) < 'Infinity'), 0)"
    ),
)
MIGRATIONS: tuple[tuple[int, tuple[str, ...]], ...] = (
    (1, _V1),
    (2, _V2),
    (3, _V3),
    (4, _V4),
)
LATEST = MIGRATIONS[-1][0]


def migrate(conn: Any, where: str) -> int:
    """Bring the schema of ``conn``'s database to ``LATEST``; returns how many were applied.

    ``where`` (the redacted URL) names the database in errors. Raises IndexVersionError for a
    schema newer than this code, StoreError when pgvector is missing and cannot be enabled.
    """
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (LOCK_KEY,))
        conn.execute(
            "CREATE TABLE IF NOT EXISTS docqa_schema ("
            "version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"
        )
        done = {int(v) for (v,) in conn.execute("SELECT version FROM docqa_schema")}
        newer = sorted(v for v in done if v > LATEST)
        if newer:
            raise IndexVersionError(
                f"the docqa schema in {where} is version {newer[-1]}, newer than this docqa "
                f"(version {LATEST}); upgrade docqa to use this database"
            )
        _ensure_pgvector(conn, where)
        todo = [(v, steps) for v, steps in MIGRATIONS if v not in done]
        for version, steps in todo:
            for statement in steps:
                conn.execute(statement)
            conn.execute("INSERT INTO docqa_schema (version) VALUES (%s)", (version,))
    return len(todo)


def _ensure_pgvector(conn: Any, where: str) -> None:
    """Enable pgvector if needed; StoreError (one line saying what to do) if that fails."""
    import psycopg

    row = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()
    if row is None:
        db = conn.info.dbname
        try:
            with conn.transaction():  # a savepoint: the error message is ours, not a traceback
                conn.execute("CREATE EXTENSION vector")
        except psycopg.errors.InsufficientPrivilege:
            raise StoreError(
                f"the pgvector extension is not enabled in database {db!r} at {where} and user "
                f"{conn.info.user!r} may not enable it; run `CREATE EXTENSION vector;` in "
                f"{db!r} as a superuser, then retry"
            ) from None
        except (psycopg.errors.FeatureNotSupported, psycopg.errors.UndefinedFile):
            raise StoreError(
                f"the PostgreSQL server at {where} has no pgvector extension installed; install "
                "pgvector 0.5 or later on the server (e.g. the postgresql-NN-pgvector package), "
                "then retry"
            ) from None
        row = conn.execute(
            "SELECT extversion FROM pg_extension WHERE extname = 'vector'"
        ).fetchone()
    if _version(row[0]) < MIN_PGVECTOR:
        raise StoreError(
            f"{where} has pgvector {row[0]}; docqa needs 0.5 or later for HNSW; run "
            "`ALTER EXTENSION vector UPDATE;` after upgrading pgvector on the server"
        )


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.split(".")[:2] if p.isdigit())
