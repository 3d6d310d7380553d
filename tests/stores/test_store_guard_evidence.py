"""A store's guard judges as a file index's does: the dense hits plus the keyword side's best
passages (the store's own keyword search), within the tenant asked for."""

from __future__ import annotations

import numpy as np
from store_helpers import fill

from docqa.retrieve import GuardConfig, GuardedRetriever

TEXTS = [
    "The reading room opens at nine and closes at six.",
    "Back up a database with pg_dump for a compressed archive.",
    "Books may be borrowed for three weeks.",
]
QUESTION = "pg_dump compressed archive"


def test_a_dense_miss_passes_on_the_stores_keyword_side(db_url: str) -> None:
    vectors = np.eye(3, dtype=np.float32)
    store, _, _, emb = fill(db_url, vectors, TEXTS, ["a", "b", "a"])
    emb.table[QUESTION] = vectors[0]  # the dense side finds the reading room only
    with store:
        guarded = store.retriever("dense", tenant=None, embedder=emb)
        assert isinstance(guarded, GuardedRetriever) and guarded.evidence is not None
        hits, verdict = guarded.check(QUESTION, 1)
        assert verdict.passed
        assert [h.chunk.text for h in hits if h.chunk] == [TEXTS[0]]
        off = GuardConfig(keyword_evidence=False)
        alone = store.retriever("dense", tenant=None, embedder=emb, guard=off)
        assert not alone.check(QUESTION, 1)[1].passed  # type: ignore[attr-defined]
        only_a = store.retriever("dense", tenant="a", embedder=emb)
        assert not only_a.check(QUESTION, 1)[1].passed  # type: ignore[attr-defined]
        keyword = store.retriever("keyword", tenant=None, embedder=emb)
        assert isinstance(keyword, GuardedRetriever) and keyword.evidence is None
