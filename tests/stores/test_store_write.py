"""Writing a collection: upsert, update only changed rows, delete removed files, mismatches."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import numpy as np
import pytest
from store_helpers import TableEmbedder, fill, make_chunks, psycopg

from docqa.build import IndexSettings
from docqa.embed import HashingEmbedder
from docqa.errors import DimensionMismatch, EmbedderMismatch, InputError, StoreUnavailable
from docqa.stores.load import ensure_collection, index_to_store, upsert
from docqa.stores.pgvector import PgVectorStore
from docqa.text import embed_text, load_chunks


def _write(folder: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")


DOCS = {
    "alpha.md": "---\ntenant: red\n---\n# Alpha\n\n## Loans\n\nBooks are lent for three weeks.\n\n"
    "## Fines\n\nA late book costs ten cents a day.\n",
    "beta.md": "---\ntenant: blue\n---\n# Beta\n\nThe reading room opens at nine.\n",
    "gamma.txt": "Plain text with no tenant about the garden and its roses.\n",
}


def _rows(url: str, collection: str = "default") -> dict[str, tuple[int, str, str | None, str]]:
    """chunk_id -> (row_id, row_hash, tenant, text)."""
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT chunk_id, row_id, row_hash, tenant, text FROM chunks JOIN collections "
            "USING (collection_id) WHERE name = %s",
            (collection,),
        ).fetchall()
    return {r[0]: (r[1], r[2], r[3], r[4]) for r in rows}


def test_first_load_writes_every_chunk_as_the_file_index_chunks_it(
    db_url: str, tmp_path: Path
) -> None:
    _write(tmp_path, DOCS)
    with PgVectorStore(db_url) as store:
        report = index_to_store([tmp_path], store)
        chunks, _ = load_chunks([tmp_path])
        stored = _rows(db_url)
        assert report.chunks == report.upserted == len(chunks) == len(stored)
        assert (report.unchanged, report.deleted) == (0, 0)
        assert {c.id: c.text for c in chunks} == {k: v[3] for k, v in stored.items()}
        tenants = {k: v[2] for k, v in stored.items()}
        assert {tenants[c.id] for c in chunks if c.source == "alpha.md"} == {"red"}
        assert {tenants[c.id] for c in chunks if c.source == "gamma.txt"} == {None}
        # the stored vectors are the hashing embedder's, on the same embed texts
        want = HashingEmbedder(256).embed([embed_text(c) for c in chunks])
        got = store.conn.execute(
            "SELECT embedding FROM chunks WHERE chunk_id = ANY(%s) ORDER BY chunk_id",
            ([c.id for c in chunks],),
        ).fetchall()
        order = np.argsort([c.id for c in chunks])
        np.testing.assert_array_equal(np.stack([g.to_numpy() for (g,) in got]), want[order])


def test_reindex_touches_only_changed_rows_and_deletes_removed_files(
    db_url: str, tmp_path: Path
) -> None:
    _write(tmp_path, DOCS)
    with PgVectorStore(db_url) as store:
        index_to_store([tmp_path], store)
        before = _rows(db_url)
        again = index_to_store([tmp_path], store)
        assert (again.upserted, again.deleted, again.unchanged) == (0, 0, len(before))
        assert _rows(db_url) == before
        text = DOCS["alpha.md"].replace("ten cents", "twenty cents")
        _write(tmp_path, {"alpha.md": text})
        (tmp_path / "beta.md").unlink()
        report = index_to_store([tmp_path], store)
        after = _rows(db_url)
    changed = {k for k in after if k in before and after[k] != before[k]}
    assert changed == {"alpha#fines"}
    assert report.upserted == 1 and report.deleted == 1
    gone = {k for k in before if k.startswith("beta")}
    assert gone and set(before) - set(after) == gone
    assert after["alpha#fines"][0] == before["alpha#fines"][0]  # updated in place: same row id
    assert "twenty cents" in after["alpha#fines"][3]
    assert {k: v for k, v in after.items() if k != "alpha#fines"} == {
        k: v for k, v in before.items() if k != "alpha#fines" and k not in gone
    }


def test_a_different_embedder_is_refused_with_the_file_index_errors(
    db_url: str, tmp_path: Path
) -> None:
    _write(tmp_path, DOCS)
    with PgVectorStore(db_url) as store:
        index_to_store([tmp_path], store)
        before = _rows(db_url)
        with pytest.raises(DimensionMismatch, match="holds 256-dim vectors"):
            index_to_store([tmp_path], store, IndexSettings(dim=128))
        with pytest.raises(DimensionMismatch, match="256-dim"):
            store.retriever("dense", tenant=None, embedder=HashingEmbedder(64))
        other = HashingEmbedder(256, stop_words=False)
        with pytest.raises(EmbedderMismatch, match="was built with 'hashing-256-v1'"):
            store.retriever("dense", tenant=None, embedder=other)
        with pytest.raises(InputError, match="hashing embedder"):
            index_to_store([tmp_path], store, IndexSettings(embedder="tfidf"))
        assert _rows(db_url) == before
        # another collection takes another embedder
        with PgVectorStore(db_url, collection="small") as small:
            assert index_to_store([tmp_path], small, IndexSettings(dim=64)).upserted > 0


def test_vectors_of_the_wrong_width_are_refused_before_any_write(db_url: str) -> None:
    store, record, _, _ = fill(db_url, np.eye(4, dtype=np.float32))
    with store:
        with pytest.raises(DimensionMismatch, match=r"shape \(2, 4\)"):
            upsert(store, record, make_chunks(["a", "b"]), np.ones((2, 3)))
        (count,) = store.conn.execute("SELECT count(*) FROM chunks").fetchone() or (0,)
    assert count == 4


SLOW_ID = "doc/c00042"


def test_a_connection_dropped_mid_batch_leaves_the_batch_unwritten(db_url: str) -> None:
    """A trigger sleeps on one row of the second batch; meanwhile the writer's backend is
    terminated. The first batch stays, nothing of the second is there, a rerun completes."""
    with psycopg.connect(db_url, autocommit=True) as admin:
        with PgVectorStore(db_url) as store:
            record = ensure_collection(store, TableEmbedder(4), IndexSettings())
            chunks = make_chunks([f"text {i}" for i in range(60)])
            vectors = np.tile(np.eye(4, dtype=np.float32), (15, 1))
            upsert(store, record, chunks[:30], vectors[:30])
            admin.execute(
                "CREATE FUNCTION slow() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                f"IF NEW.chunk_id = '{SLOW_ID}' THEN PERFORM pg_sleep(30); END IF; "
                "RETURN NEW; END $$"
            )
            admin.execute(
                "CREATE TRIGGER slow BEFORE INSERT ON chunks FOR EACH ROW EXECUTE FUNCTION slow()"
            )
            pid = store.conn.info.backend_pid
            killer = threading.Thread(target=_terminate_when_sleeping, args=(db_url, pid))
            killer.start()
            with pytest.raises(StoreUnavailable, match="lost the connection") as info:
                upsert(store, record, chunks[30:], vectors[30:])
            killer.join(timeout=30)
        assert "\n" not in str(info.value) and "nothing of it was written" in str(info.value)
        ids = [r for (r,) in admin.execute("SELECT chunk_id FROM chunks ORDER BY 1")]
        assert ids == [c.id for c in chunks[:30]]
        admin.execute("DROP TRIGGER slow ON chunks")
    with PgVectorStore(db_url, collection=record.name) as store:
        upsert(store, record, chunks[30:], vectors[30:])
        (count,) = store.conn.execute("SELECT count(*) FROM chunks").fetchone() or (0,)
    assert count == 60


def _terminate_when_sleeping(url: str, pid: int) -> None:
    """Terminate backend ``pid`` once it sleeps in the trigger (bounded: 20 s)."""
    deadline = time.monotonic() + 20
    with psycopg.connect(url, autocommit=True) as conn:
        while time.monotonic() < deadline:
            row = conn.execute(
                "SELECT wait_event FROM pg_stat_activity WHERE pid = %s", (pid,)
            ).fetchone()
            if row and row[0] == "PgSleep":
                conn.execute("SELECT pg_terminate_backend(%s)", (pid,))
                return
            time.sleep(0.05)
