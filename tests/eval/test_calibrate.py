"""Calibration: the trade-off curve over candidate settings and the chosen point."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from docqa.build import build_index
from docqa.collection import Collection
from docqa.errors import InputError
from docqa.eval import Question, load_questions
from docqa.eval.calibrate import Point, calibrate, choose
from docqa.retrieve.guard import GuardConfig

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
    plain = [p for p in fit.points if p.config.unknown_from is None]
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
