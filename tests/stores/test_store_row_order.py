"""A store's row ids follow the chunks' order, batch after batch, so ties (scores equal, e.g.
every row at 0.0) break as the file index breaks them: by the row that comes first."""

from __future__ import annotations

import random

import numpy as np
from store_helpers import TableEmbedder, make_chunks, row_ids

from docqa.build import IndexSettings
from docqa.search import topk
from docqa.stores.load import BATCH_ROWS, ensure_collection, upsert
from docqa.stores.pgvector import PgVectorStore

ROWS = 3 * BATCH_ROWS


def _texts(rng: random.Random, n: int) -> list[str]:
    """Texts of very different lengths (a few words to a few pages) that do not compress:
    rows of such sizes are where PostgreSQL places a staged row on an earlier page."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    sizes = (5, 50, 200, 400, 700, 1500)
    return [
        " ".join(
            "".join(rng.choices(letters, k=rng.randint(2, 9))) for _ in range(rng.choice(sizes))
        )
        for _ in range(n)
    ]


def test_ties_at_zero_within_a_tenant_go_to_the_first_chunk(db_url: str) -> None:
    """Tenant "a"'s rows are zero vectors (each scores 0.0), tenant "b"'s point at the
    question. Dense, k=1, in tenant "a", under windows of 50 consecutive chunks as masks:
    the hit is the window's first chunk of tenant "a", as the canonical order has it."""
    chunks = make_chunks(
        _texts(random.Random(0), ROWS), ["a" if i % 2 else "b" for i in range(ROWS)]
    )
    vectors = np.zeros((ROWS, 4), np.float32)
    vectors[::2, 0] = 1.0  # tenant "b"
    store = PgVectorStore(db_url, collection="ties")
    embedder = TableEmbedder(4, {"q": np.array([1.0, 0.0, 0.0, 0.0], np.float32)})
    record = ensure_collection(store, embedder, IndexSettings())
    for start in range(0, ROWS, BATCH_ROWS):  # as index_to_store writes them
        part = slice(start, start + BATCH_ROWS)
        upsert(store, record, chunks[part], vectors[part])
    with store:
        rows = row_ids(store, record)  # in chunk order
        tenant_a = np.array([i % 2 == 1 for i in range(ROWS)])
        dense = store.retriever("dense", tenant="a", embedder=embedder, guard=False)
        wrong = []
        for start in range(0, ROWS, 50):
            window = np.zeros(ROWS, bool)
            window[start : start + 50] = True
            want = topk(vectors, embedder.table["q"], 1, mask=window & tenant_a)
            hits = dense.search("q", 1, mask=np.array(rows[start : start + 50]))
            if [(h.id, h.score) for h in hits] != [(chunks[int(want.ids[0][0])].id, 0.0)]:
                wrong.append(start)
        assert wrong == []
        assert rows == sorted(rows)  # the root: row ids in the order the chunks were staged
