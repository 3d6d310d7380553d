"""Calibration: the trade-off curve over candidate settings and the chosen point."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from docqa.build import build_index
from docqa.cli.calibrate import frontier
from docqa.collection import Collection
from docqa.errors import InputError
from docqa.eval import Question, load_questions
from docqa.eval.calibrate import (
    Point,
    calibrate,
    choose,
    folds_of,
    judged,
    settings,
    trade_off,
)
from docqa.retrieve.drift import Semantic
from docqa.retrieve.guard import GuardConfig, GuardedRetriever, judge
from docqa.types import Hit

ROOT = Path(__file__).resolve().parents[2]


def point(c: float, kept: float, refused: float) -> Point:
    return Point(GuardConfig(min_coverage=c), kept, refused)


def test_choose_the_most_refusing_point_that_keeps_enough() -> None:
    points = [point(0.0, 1.0, 0.2), point(0.1, 0.95, 0.6), point(0.2, 0.95, 0.6),
              point(0.3, 0.85, 0.9)]  # fmt: skip
    chosen, reached = choose(points, 0.9)
    assert reached and chosen == points[1]  # ties go to the lower threshold
    chosen, reached = choose(points, 0.99)
    assert reached and chosen == points[0]
    chosen, reached = choose([point(0.3, 0.85, 0.9), point(0.4, 0.5, 1.0)], 0.9)
    assert not reached and chosen.kept == 0.85


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Collection:
    root = tmp_path_factory.mktemp("cal") / "ix"
    build_index([ROOT / "examples" / "library"], root)
    return Collection.open(root)


def test_calibrate_on_the_sample_questions(library: Collection) -> None:
    questions = load_questions(ROOT / "examples" / "questions.jsonl")
    fit = calibrate(questions, library.retriever("keyword", guard=False), library.bm25)
    assert (fit.answerable, fit.unanswerable) == (32, 6)
    assert fit.reached and fit.chosen.kept >= 0.9
    assert all(p.refused <= fit.chosen.refused for p in fit.points if p.kept >= 0.9)
    # the curve is monotone in the threshold: a higher one never keeps more
    default = GuardConfig().unknown_share_from
    plain = [p for p in fit.points if p.config.unknown_from is None
             and p.config.unknown_share_from == default]  # fmt: skip
    assert len(fit.points) == 4 * len(plain)  # unknown words as names or not, share rule
    assert all(a.kept >= b.kept for a, b in itertools.pairwise(plain))
    # the chosen settings do what the curve says on the same questions
    guarded = library.retriever("keyword", guard=fit.chosen.config)
    kept = [bool(guarded.search(q.question, 5)) for q in questions if q.answerable]
    assert sum(kept) / len(kept) == fit.chosen.kept


def test_calibrate_needs_both_kinds(library: Collection) -> None:
    only = [Question("a", "What is the loan period for books?", ("loans#loan-periods",))]
    with pytest.raises(InputError, match="answerable and unanswerable"):
        calibrate(only, library.retriever("keyword", guard=False), library.bm25)
    both = [*only, Question("b", "Capital of Mongolia?", ())]
    with pytest.raises(InputError, match="min_kept"):
        calibrate(both, library.retriever("keyword", guard=False), library.bm25, min_kept=2.0)


def test_folds_deal_each_kind_round_robin() -> None:
    kinds = [True, True, False, True, False, True, True, False]
    fold = folds_of(kinds, 3)
    assert fold.tolist() == [0, 1, 0, 2, 1, 0, 1, 2]
    for f in range(3):  # every fold holds both kinds
        assert {kinds[i] for i in range(len(kinds)) if fold[i] == f} == {True, False}


def held_out_by_refitting(
    questions: list[Question],
    hits: list[list[Hit]],
    collection: Collection,
    folds: int,
    semantic: Semantic | None,
) -> tuple[float, float]:
    """The slow twin of ``held_out``: per fold, fit the curve again on the other folds
    with ``trade_off`` and ``choose``, then judge the fold's questions one by one (with the
    guard's drift side ``semantic``, as ``calibrate`` judges)."""
    fold = folds_of([q.answerable for q in questions], folds)
    passed: dict[int, bool] = {}
    for f in range(folds):
        train = [i for i in range(len(questions)) if fold[i] != f]
        curve = trade_off([questions[i] for i in train], [hits[i] for i in train],
                          collection.bm25, GuardConfig(), semantic=semantic)  # fmt: skip
        chosen, _ = choose(curve, 0.9)
        for i in (i for i in range(len(questions)) if fold[i] == f):
            verdict = judge(
                questions[i].question, hits[i], chosen.config, collection.bm25, semantic
            )
            passed[i] = verdict.passed
    kept = [passed[i] for i, q in enumerate(questions) if q.answerable]
    refused = [not passed[i] for i, q in enumerate(questions) if not q.answerable]
    return sum(kept) / len(kept), sum(refused) / len(refused)


@pytest.mark.parametrize("folds", [2, 5])
def test_held_out_equals_refitting_each_fold(library: Collection, folds: int) -> None:
    questions = load_questions(ROOT / "examples" / "questions.jsonl")
    retriever = library.retriever("hybrid", guard=GuardConfig())
    assert isinstance(retriever, GuardedRetriever)
    fit = calibrate(questions, retriever, library.bm25, folds=folds)
    assert fit.held_out is not None and fit.held_out.folds == folds
    hits = [judged(retriever, q.question, 5) for q in questions]
    semantic = retriever.semantic
    kept, refused = held_out_by_refitting(questions, hits, library, folds, semantic)
    assert (fit.held_out.kept, fit.held_out.refused) == pytest.approx((kept, refused))
    # the in-sample curve is still the one trade_off gives on every question
    curve = trade_off(questions, hits, library.bm25, GuardConfig(), semantic=semantic)
    assert list(fit.points) == curve


def test_held_out_needs_two_questions_of_each_kind(library: Collection) -> None:
    questions = load_questions(ROOT / "examples" / "questions.jsonl")
    one_unanswerable = [q for q in questions if q.answerable][:10] + [
        q for q in questions if not q.answerable
    ][:1]
    fit = calibrate(one_unanswerable, library.retriever("keyword", guard=False), library.bm25)
    assert fit.held_out is None
    three = [q for q in questions if q.answerable][:10] + [
        q for q in questions if not q.answerable
    ][:3]
    fit = calibrate(three, library.retriever("keyword", guard=False), library.bm25, folds=5)
    assert fit.held_out is not None and fit.held_out.folds == 3  # no more folds than questions
    with pytest.raises(InputError, match="folds must be an integer >= 2"):
        calibrate(three, library.retriever("keyword", guard=False), library.bm25, folds=1)


def test_the_unknown_share_rule_is_tried_at_any_size_only_where_it_is_off() -> None:
    def shares(configs: list[GuardConfig]) -> set[int | None]:
        return {c.unknown_share_from for c in configs}

    base = GuardConfig()  # the rule off: tried on at any size, whatever the collection's
    assert shares(settings(base, n_terms=100)) == {None, 0}
    assert shares(settings(base, n_terms=50_000)) == {None, 0}
    gated = GuardConfig(unknown_share_from=2000)
    assert shares(settings(gated, n_terms=100)) == {2000, 0}  # off at that size: tried at any
    assert shares(settings(gated, n_terms=50_000)) == {2000}  # on already
    assert len(settings(gated, n_terms=100)) == 2 * len(settings(gated, n_terms=50_000))


def test_the_frontier_shows_the_chosen_setting_among_equals() -> None:
    a = Point(GuardConfig(min_coverage=0.2), 0.9, 0.8)
    b = Point(GuardConfig(min_coverage=0.2, unknown_share_from=0), 0.9, 0.8)
    worse = Point(GuardConfig(min_coverage=0.5), 0.8, 0.8)
    assert frontier([a, b, worse], b) == [b]
    assert frontier([a, b, worse], a) == [a]
    assert len(frontier([a, b, worse])) == 1
