"""The store's BM25 statistics stay those of a fresh file index of the same documents through
incremental loads (changed, added, removed files), a failed batch and rows without postings."""

from __future__ import annotations

import random
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from store_helpers import make_chunks, psycopg

from docqa.build import IndexSettings, build_index
from docqa.collection import Collection
from docqa.errors import StoreError
from docqa.stores.load import index_to_store, upsert
from docqa.stores.migrations import LATEST
from docqa.stores.pgvector import PgVectorStore
from docqa.stores.verify import check

SETTINGS = IndexSettings(tenant_from_folder=True)
WORDS = ["loan", "fine", "card", "garden", "rose", "room", "book", "late", "nine", "hold"]
QUESTIONS = ["loan fine", "garden rose room", "late book", "card", "nine hold loan garden"]


def _files(rng: random.Random, names: list[str]) -> dict[str, str]:
    out = {}
    for name in names:
        sections = [
            f"## {rng.choice(WORDS)} {s}\n\n{' '.join(rng.choices(WORDS, k=rng.randint(3, 150)))}"
            for s in range(rng.randint(1, 3))
        ]
        out[name] = f"# {name}\n\n" + "\n\n".join(sections) + "\n"
    return out


def _write(folder: Path, files: dict[str, str]) -> None:
    shutil.rmtree(folder, ignore_errors=True)
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")


def _stats(store: PgVectorStore) -> tuple[int, int, dict[int, int], int]:
    conn, name = store.conn, store.collection
    n, total, cid = conn.execute(
        "SELECT n_docs, total_length, collection_id FROM collections WHERE name = %s", (name,)
    ).fetchone()
    df = conn.execute("SELECT term, df FROM term_df WHERE collection_id = %s AND df > 0", (cid,))
    (nnz,) = conn.execute(
        "SELECT count(*) FROM postings WHERE collection_id = %s", (cid,)
    ).fetchone()
    return int(n), int(total), dict(df.fetchall()), int(nnz)


def _index_stats(index: Any) -> tuple[int, int, dict[int, int], int]:
    bm25 = index.bm25
    df = np.diff(bm25.indptr)
    terms = bm25.vocab.view(np.int64)
    return (
        bm25.n_docs,
        int(bm25.lengths.sum()),
        dict(zip(terms.tolist(), df.tolist(), strict=True)),
        int(bm25.rows.size),
    )


def _check_equal(store: PgVectorStore, folder: Path, tmp: Path) -> None:
    """Statistics, and every hit with its score (k = every row, so ties cannot reorder the
    comparison: after updates the store's row ids no longer follow the file order)."""
    shutil.rmtree(tmp / "index", ignore_errors=True)
    build_index([folder], tmp / "index", SETTINGS, workers=1)
    index = Collection.open(tmp / "index")
    assert _stats(store) == _index_stats(index)
    assert check(store).problems == ()  # postings' lengths, max_norm among them
    n = len(index.chunks)
    for question in QUESTIONS:
        want = index.retriever("keyword", guard=False).search(question, n)
        got = store.retriever("keyword", tenant=None, guard=False).search(question, n)
        assert sorted((h.id, h.score) for h in got) == sorted((h.id, h.score) for h in want)


@pytest.mark.parametrize("seed", [1, 2])
def test_statistics_follow_incremental_loads(db_url: str, tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    names = [f"{t}/doc{i}.md" for t in ("red", "blue") for i in range(4)]
    files = _files(rng, names)
    folder = tmp_path / "docs"
    with PgVectorStore(db_url) as store:
        for step in range(4):
            _write(folder, files)
            report = index_to_store([folder], store, SETTINGS, hnsw=False)
            assert report.upserted + report.deleted > 0
            _check_equal(store, folder, tmp_path)
            changed = rng.sample(sorted(files), 2)  # rewritten (shorter or longer)
            files.update(_files(rng, changed))
            del files[rng.choice(sorted(files))]  # removed
            files.update(_files(rng, [f"green/new{step}.md"]))  # added


def test_a_failed_batch_leaves_rows_and_statistics_as_they_were(db_url: str) -> None:
    from store_helpers import TableEmbedder

    from docqa.stores.load import ensure_collection

    with PgVectorStore(db_url) as store:
        record = ensure_collection(store, TableEmbedder(2), IndexSettings())
        chunks = make_chunks(["loan fine card", "garden rose", "late book"])
        upsert(store, record, chunks, np.ones((3, 2), np.float32))
        before = _stats(store)
        # rows, and tokens: 7 words, and "Doc > Part i" (3 tokens) twice in each row
        assert before[:2] == (3, 7 + 3 * 6)
        twice = make_chunks(["loan loan", "new words here"])
        twice[1] = twice[0]  # the same chunk id twice: the upsert fails after the retract
        with pytest.raises(StoreError, match="refused writing 2 rows"):
            upsert(store, record, twice, np.ones((2, 2), np.float32))
        assert _stats(store) == before


def test_rows_without_postings_get_them_from_the_next_load(db_url: str, tmp_path: Path) -> None:
    """Rows as a schema-1 store left them (no postings, no statistics) count as changed."""
    folder = tmp_path / "docs"
    _write(folder, _files(random.Random(3), ["red/a.md", "blue/b.md", "c.md"]))
    with PgVectorStore(db_url) as store:
        index_to_store([folder], store, SETTINGS, hnsw=False)
        conn = store.conn
        conn.execute("UPDATE chunks SET kw_length = NULL")
        conn.execute("DELETE FROM postings")
        conn.execute("DELETE FROM term_df")
        conn.execute("UPDATE collections SET n_docs = 0, total_length = 0")
        report = index_to_store([folder], store, SETTINGS, hnsw=False)
        assert report.upserted == report.chunks and report.unchanged == 0
        _check_equal(store, folder, tmp_path)


# what schema version 4 changed, undone: a store as version 3 wrote it
_AS_VERSION_3 = (
    (
        "ALTER TABLE postings DROP CONSTRAINT postings_pkey, "
        "ADD CONSTRAINT postings_pkey PRIMARY KEY (collection_id, term, row_id)"
    ),
    "ALTER TABLE postings DROP COLUMN length",
    "DROP INDEX chunks_tenant",
    "CREATE INDEX chunks_tenant ON chunks (collection_id, tenant)",
    "ALTER TABLE collections DROP COLUMN max_norm",
    "DELETE FROM docqa_schema WHERE version = 4",
)


def _searches(store: PgVectorStore) -> dict[tuple[str, str | None], list[tuple[str, float]]]:
    """Every question's keyword hits (ids and scores), over every row and over one tenant."""
    return {
        (question, tenant): [
            (h.id, h.score)
            for h in store.retriever("keyword", tenant=tenant, guard=False).search(question, 50)
        ]
        for question in QUESTIONS
        for tenant in (None, "red")
    }


def test_a_version_3_store_with_rows_is_migrated_and_searches_as_before(
    db_url: str, tmp_path: Path
) -> None:
    folder = tmp_path / "docs"
    names = [f"{t}/doc{i}.md" for t in ("red", "blue") for i in range(4)]
    _write(folder, _files(random.Random(3), names))
    with PgVectorStore(db_url) as store:
        index_to_store([folder], store, SETTINGS, hnsw=False)
        before = _searches(store)
    with psycopg.connect(db_url, autocommit=True) as conn:
        for statement in _AS_VERSION_3:
            conn.execute(statement)
    with PgVectorStore(db_url) as store:  # connecting applies version 4
        conn = store.conn
        assert conn.execute("SELECT max(version) FROM docqa_schema").fetchone() == (LATEST,)
        wrong = conn.execute(
            "SELECT count(*) FROM postings p JOIN chunks c ON c.row_id = p.row_id "
            "WHERE p.length IS DISTINCT FROM c.kw_length"
        ).fetchone()
        assert wrong == (0,)
        (bound,) = conn.execute("SELECT max_norm FROM collections").fetchone()
        assert bound > 0  # the hashing rows' norms are 1
        assert check(store).problems == ()
        assert _searches(store) == before
        assert any(before.values())
        _check_equal(store, folder, tmp_path)
