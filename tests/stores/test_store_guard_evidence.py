"""A store's guard judges as a file index's does: the dense hits plus the keyword side's best
passages (the store's own keyword search), within the tenant asked for, and the drift check
for an embedder that has one."""

from __future__ import annotations

import numpy as np
from store_helpers import TableEmbedder, fill

from docqa.retrieve import GuardConfig, GuardedRetriever
from docqa.retrieve.drift import without_word
from docqa.text.sections import embed_text

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


class DriftingTable(TableEmbedder):
    """A table embedder that declares a drift threshold, as MiniLM does."""

    guard_drift = 0.1


def test_the_stores_guard_runs_the_drift_check_on_the_passages_texts(db_url: str) -> None:
    texts = ["Renew your loans online or at a desk.", "The reading room opens at nine."]
    vectors = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]], dtype=np.float32)
    store, _, chunks, _ = fill(db_url, vectors, texts)
    emb = DriftingTable(3)
    question = "How do I renew my passport?"
    emb.table[question] = np.array([0.6, 0.8, 0.0], dtype=np.float32)  # half about passports
    emb.table[without_word(question, "passport")] = vectors[0]
    for chunk, vector in zip(chunks, vectors, strict=True):  # what the check embeds
        emb.table[embed_text(chunk)] = vector
    with store:
        guarded = store.retriever("keyword", tenant=None, embedder=emb)
        assert isinstance(guarded, GuardedRetriever) and guarded.semantic is not None
        _, verdict = guarded.check(question, 2)
        assert not verdict.passed
        assert "without passport the question is 0.40 closer" in verdict.reasons[-1]
        off = store.retriever("keyword", tenant=None, embedder=emb, guard=GuardConfig(drift=False))
        assert off.search(question, 2)  # the lexical checks alone pass it
