"""The weak-retrieval guard: per-component thresholds, the hybrid rule, and the wrapper."""

from __future__ import annotations

import pytest

from docqa.errors import InputError
from docqa.keyword import BM25Index
from docqa.retrieve import (
    DENSE,
    KEYWORD,
    GuardConfig,
    GuardedRetriever,
    HybridRetriever,
    KeywordRetriever,
    judge,
)
from docqa.types import Chunk, Component, Hit


def hit(**components: tuple[float, int]) -> Hit:
    return Hit(0, "c", "s", 0.0, {n: Component(*v) for n, v in components.items()})


CONFIG = GuardConfig(min_cosine=0.5, min_keyword=0.25, rule="any")


def test_dense_threshold_uses_the_best_cosine() -> None:
    assert judge([hit(dense=(0.2, 2)), hit(dense=(0.6, 1))], CONFIG, keyword_max=None).passed
    verdict = judge([hit(dense=(0.49, 1))], CONFIG, keyword_max=None)
    assert not verdict.passed and verdict.reasons == ("dense: best cosine 0.490 < min_cosine 0.5",)


def test_keyword_threshold_is_relative_to_the_max_attainable_score() -> None:
    hits = [hit(keyword=(3.0, 1))]
    assert judge(hits, CONFIG, keyword_max=10.0).passed  # 0.30 >= 0.25
    assert not judge(hits, CONFIG, keyword_max=20.0).passed  # 0.15 < 0.25
    assert not judge(hits, CONFIG, keyword_max=0.0).passed
    with pytest.raises(InputError, match="keyword_max"):
        judge(hits, CONFIG, keyword_max=None)


@pytest.mark.parametrize(
    ("cosine", "share", "any_passes", "all_passes"),
    [
        (0.9, 0.9, True, True),
        (0.9, 0.1, True, False),
        (0.1, 0.9, True, False),
        (0.1, 0.1, False, False),
    ],
)
def test_hybrid_rule(cosine: float, share: float, any_passes: bool, all_passes: bool) -> None:
    hits = [hit(dense=(cosine, 1), keyword=(share, 1))]
    assert judge(hits, CONFIG, keyword_max=1.0).passed is any_passes
    all_config = GuardConfig(min_cosine=0.5, min_keyword=0.25, rule="all")
    verdict = judge(hits, all_config, keyword_max=1.0)
    assert verdict.passed is all_passes and len(verdict.reasons) == 2


def test_no_evidence_fails() -> None:
    assert not judge([], CONFIG, keyword_max=None).passed
    assert not judge([hit(other=(1.0, 1))], CONFIG, keyword_max=None).passed


def test_config_is_validated() -> None:
    with pytest.raises(InputError, match="rule"):
        GuardConfig(rule="most")  # type: ignore[arg-type]
    with pytest.raises(InputError, match="min_cosine"):
        GuardConfig(min_cosine=float("nan"))


def test_guarded_keyword_retriever_refuses_weak_questions(
    texts: list[str], chunks: list[Chunk]
) -> None:
    guarded = GuardedRetriever(KeywordRetriever(BM25Index.from_texts(texts), chunks), CONFIG)
    strong = guarded.search("pg_dump -Fc archive", 3)
    assert strong and strong[0].row == 3
    # One known word among many unknown ones: normalised score far below the threshold.
    hits, verdict = guarded.check("books quantum chromodynamics lattice gluon", 3)
    assert hits and not verdict.passed and verdict.reasons[0].startswith("keyword:")
    assert guarded.search("books quantum chromodynamics lattice gluon", 3) == []
    assert guarded.search("the of and", 3) == []


def test_guarded_hybrid_consults_the_keyword_bound(
    texts: list[str], chunks: list[Chunk], fake: type
) -> None:
    keyword = KeywordRetriever(BM25Index.from_texts(texts), chunks)
    weak_dense = fake(DENSE, [(1, 0.1)])
    guarded = GuardedRetriever(HybridRetriever(weak_dense, keyword), CONFIG)
    hits, verdict = guarded.check("error 40001", 2)
    assert verdict.passed and {DENSE, KEYWORD} <= {n for h in hits for n in h.components}
    assert GuardedRetriever(HybridRetriever(weak_dense, keyword), CONFIG).search("zzz", 2) == []


def test_an_expected_component_with_no_hit_fails_under_rule_all() -> None:
    dense_only = [
        Hit(
            row=0,
            id="c",
            section="s",
            score=0.9,
            components={"dense": Component(score=0.9, rank=1)},
        )
    ]
    strict = GuardConfig(min_cosine=0.5, min_keyword=0.25, rule="all")
    verdict = judge(dense_only, strict, keyword_max=None, expect=("dense", "keyword"))
    assert not verdict.passed and "keyword: no hit" in verdict.reasons
    lenient = GuardConfig(min_cosine=0.5, min_keyword=0.25, rule="any")
    assert judge(dense_only, lenient, keyword_max=None, expect=("dense", "keyword")).passed
