"""The guard judges the collection's evidence, not one retriever's top k: the mode's hits plus
the keyword side's best passages (``keyword_evidence``), searched under the same row mask."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from docqa.build import build_index
from docqa.collection import Collection
from docqa.errors import IndexCorrupt, InputError
from docqa.eval import Question
from docqa.eval.calibrate import calibrate, judged
from docqa.keyword import BM25Index
from docqa.retrieve import DENSE, KEYWORD, GuardConfig, GuardedRetriever, KeywordRetriever
from docqa.retrieve.guard import with_evidence
from docqa.types import Chunk, Component, Hit

ARCHIVE = "pg_dump compressed archive"  # held by row 3 only


@pytest.fixture(scope="module")
def bm25(texts: list[str]) -> BM25Index:
    return BM25Index.from_texts(texts)


def test_a_dense_miss_passes_on_the_keyword_sides_passage(
    bm25: BM25Index, chunks: list[Chunk], fake: type
) -> None:
    dense = fake(DENSE, [(5, 0.9), (0, 0.8)])  # the reading room and loans: no archive
    keyword = KeywordRetriever(bm25, chunks)
    alone = GuardedRetriever(dense, bm25=bm25)
    assert not alone.check(ARCHIVE, 2)[1].passed
    guarded = GuardedRetriever(dense, bm25=bm25, evidence=keyword)
    hits, verdict = guarded.check(ARCHIVE, 2)
    assert verdict.passed
    assert [h.row for h in hits] == [5, 0]  # the hits returned are still the mode's own
    assert f", {chunks[3].id}, holds 1.00" in verdict.reasons[0]
    assert verdict.reasons[-1] == (
        "evidence: the 2 hits and 1 more of the keyword side's best 2 "
        "(the hits alone would be refused: the keyword side found the evidence)"
    )
    assert [h.row for h in guarded.search(ARCHIVE, 2)] == [5, 0]


def test_the_evidence_line_says_nothing_more_when_the_hits_pass_alone(
    bm25: BM25Index, chunks: list[Chunk], fake: type
) -> None:
    dense = fake(DENSE, [(3, 0.9), (5, 0.5)])
    guarded = GuardedRetriever(dense, bm25=bm25, evidence=KeywordRetriever(bm25, chunks))
    verdict = guarded.check("pg_dump compressed archive for books", 2)[1]
    assert verdict.passed
    assert verdict.reasons[-1] == "evidence: the 2 hits and 1 more of the keyword side's best 2"


def test_no_evidence_line_when_the_keyword_side_adds_nothing(
    bm25: BM25Index, chunks: list[Chunk], fake: type
) -> None:
    dense = fake(DENSE, [(3, 0.9)])
    guarded = GuardedRetriever(dense, bm25=bm25, evidence=KeywordRetriever(bm25, chunks))
    verdict = guarded.check(ARCHIVE, 1)[1]
    assert verdict.passed and not any(r.startswith("evidence:") for r in verdict.reasons)


def test_the_evidence_does_not_rescue_an_unanswerable_question(
    bm25: BM25Index, chunks: list[Chunk], fake: type
) -> None:
    dense = fake(DENSE, [(0, 0.9)])
    guarded = GuardedRetriever(dense, bm25=bm25, evidence=KeywordRetriever(bm25, chunks))
    for question in ("quantum chromodynamics lattice gluon", "How do I install Django?"):
        hits, verdict = guarded.check(question, 3)
        assert hits and not verdict.passed, verdict
        assert guarded.search(question, 3) == []


def test_the_evidence_is_asked_for_k_under_the_same_mask(
    bm25: BM25Index, chunks: list[Chunk], fake: type
) -> None:
    dense, keyword = fake(DENSE, [(5, 0.9)]), fake(KEYWORD, [(3, 4.0)])
    guarded = GuardedRetriever(dense, bm25=bm25, evidence=keyword)
    mask = np.array([False, False, False, True, False, True])
    assert guarded.check(ARCHIVE, 4, mask=mask)[1].passed
    assert keyword.calls == [(ARCHIVE, 4, mask)]
    off = GuardedRetriever(dense, GuardConfig(keyword_evidence=False), bm25=bm25, evidence=keyword)
    assert not off.check(ARCHIVE, 4)[1].passed
    assert len(keyword.calls) == 1  # off: the keyword side is not asked
    assert guarded.check(ARCHIVE, 0)[1].reasons == ("no hits",)
    assert len(keyword.calls) == 1  # k = 0: nothing to gather


def test_keyword_evidence_setting() -> None:
    with pytest.raises(InputError, match="keyword_evidence must be True or False"):
        GuardConfig(keyword_evidence=1)  # type: ignore[arg-type]
    config = GuardConfig(keyword_evidence=False)
    assert GuardConfig.from_dict(config.to_dict()) == config
    # settings stored before the option existed read as the default (on)
    assert GuardConfig.from_dict({"min_coverage": 0.2}).keyword_evidence is True
    with pytest.raises(IndexCorrupt, match="keyword_evidence"):
        GuardConfig.from_dict({"keyword_evidence": "yes"})


def _hit(row: int) -> Hit:
    return Hit(row, f"d#{row}", f"d#{row}", 0.0, {DENSE: Component(0.0, 1)})


@given(
    st.lists(st.integers(0, 30), unique=True, max_size=10),
    st.lists(st.integers(0, 30), unique=True, max_size=10),
)
def test_with_evidence_is_the_hits_then_the_new_rows(first: list[int], extra: list[int]) -> None:
    out = with_evidence([_hit(r) for r in first], [_hit(r) for r in extra])
    rows = [h.row for h in out]
    assert rows[: len(first)] == first
    assert rows[len(first) :] == [r for r in extra if r not in first]
    assert len(set(rows)) == len(rows) and set(rows) == set(first) | set(extra)


@pytest.fixture(scope="module")
def tenants(tmp_path_factory: pytest.TempPathFactory) -> Collection:
    docs = tmp_path_factory.mktemp("docs")
    (docs / "a.md").write_text(
        "---\ntenant: a\n---\n# Loans\n\nBooks may be borrowed for three weeks.\n\n"
        "# Rooms\n\nThe reading room opens at nine.\n"
    )
    (docs / "b.md").write_text(
        "---\ntenant: b\n---\n# Backups\n\nBack up a database with pg_dump -Fc for a "
        "compressed archive.\n"
    )
    build_index([docs], docs.parent / "ix")
    return Collection.open(docs.parent / "ix")


@pytest.mark.parametrize("mode", ["dense", "keyword", "hybrid"])
def test_another_tenants_passage_is_no_evidence(tenants: Collection, mode: str) -> None:
    everyone = tenants.retriever(mode)
    assert isinstance(everyone, GuardedRetriever)
    assert (everyone.evidence is None) == (mode == "keyword")
    assert everyone.check(ARCHIVE, 2)[1].passed
    only_a = tenants.retriever(mode, tenants=["a"])
    hits, verdict = only_a.check(ARCHIVE, 2)  # type: ignore[attr-defined]
    assert not verdict.passed
    assert all(h.chunk is not None and h.chunk.metadata["tenant"] == "a" for h in hits)


def test_calibration_judges_the_gathered_passages(tenants: Collection) -> None:
    guarded = tenants.retriever("dense")
    assert isinstance(guarded, GuardedRetriever)
    gathered = guarded.gather(ARCHIVE, 1)
    assert judged(guarded, ARCHIVE, 1) == gathered[1]
    bare = tenants.retriever("dense", guard=False)
    assert judged(bare, ARCHIVE, 1) == bare.search(ARCHIVE, 1)
    qs = [Question("a", ARCHIVE, ("b#backups",)), Question("u", "capital of Mongolia", ())]
    fit = calibrate(qs, guarded, tenants.bm25, k=1)
    assert fit.chosen.kept == 1.0 and fit.chosen.refused == 1.0
