"""Fit the guard to a collection's own labelled questions: the kept / refused trade-off curve.

Each question is searched once (the bare retriever, ``k`` hits); every candidate setting is then
judged on those same hits, so the curve costs one search per question. A setting is a
``min_coverage`` on a grid, with unknown words counted as names or not (``unknown_from`` 0 or
None) and, where the guard leaves the unknown-share rule off for this collection (by default
it is off), that rule on too (``unknown_share_from`` 0): a collection's own questions may show
that it pays there. The chosen point refuses the most unanswerable questions among
those keeping at least ``min_kept`` of the answerable ones (ties: more kept, then the lower
threshold); when none keeps that many, the one keeping the most (ties: more refused).

The curve is in-sample: it is fitted on the questions it reports on. ``held_out`` estimates what
the fit does on questions it has not seen: the questions are dealt into folds (answerable and
unanswerable apart, in file order), each fold is judged by the setting chosen on the other
folds, and the shares are counted over every question so judged (k-fold cross-validation).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from docqa.errors import InputError
from docqa.eval.questions import Question
from docqa.keyword import BM25Index
from docqa.retrieve.drift import Semantic
from docqa.retrieve.guard import GuardConfig, GuardedRetriever, judge
from docqa.types import Hit, Retriever

GRID = tuple(round(0.025 * i, 3) for i in range(33))  # 0.0 .. 0.8


@dataclass(frozen=True, slots=True)
class Point:
    """One setting and what it does on the labelled questions."""

    config: GuardConfig
    kept: float  # share of the answerable questions passed
    refused: float  # share of the unanswerable questions refused


@dataclass(frozen=True, slots=True)
class HeldOut:
    """The fit judged on questions it was not fitted on (see the module docstring)."""

    folds: int
    kept: float
    refused: float


@dataclass(frozen=True, slots=True)
class Calibration:
    points: tuple[Point, ...]
    chosen: Point
    reached: bool  # whether the chosen point keeps at least min_kept
    answerable: int
    unanswerable: int
    held_out: HeldOut | None = None  # None: too few questions of a kind for two folds


def settings(
    base: GuardConfig, grid: Sequence[float] = GRID, n_terms: int | None = None
) -> list[GuardConfig]:
    """The candidate settings: every threshold of ``grid``, unknown words as names or not, and
    the unknown-share rule as ``base`` has it or, in a collection of ``n_terms`` terms that
    it leaves out, at any size (``unknown_share_from=0``: a small collection's own questions
    may show that it pays there too)."""
    shares: list[int | None] = [base.unknown_share_from]
    gate = base.unknown_share_from
    if gate is None or n_terms is None or n_terms < gate:
        shares = list(dict.fromkeys([*shares, 0]))
    return [
        replace(base, min_coverage=threshold, unknown_from=unknown, unknown_share_from=share)
        for share in shares
        for unknown in (None, 0)
        for threshold in grid
    ]


def verdicts(
    questions: Sequence[Question],
    hits: Sequence[Sequence[Hit]],
    bm25: BM25Index,
    configs: Sequence[GuardConfig],
    semantic: Semantic | None = None,
) -> np.ndarray:
    """Whether each setting passes each question: bool (len(configs), len(questions)).
    ``semantic`` adds the drift check; its drifts are computed once per question."""
    if semantic is not None:
        semantic = replace(semantic, memo={})
    return np.array(
        [
            [
                judge(q.question, h, config, bm25, semantic).passed
                for q, h in zip(questions, hits, strict=True)
            ]
            for config in configs
        ],
        dtype=np.bool_,
    ).reshape(len(configs), len(questions))


def points_of(
    configs: Sequence[GuardConfig], passed: np.ndarray, answerable: np.ndarray
) -> list[Point]:
    """Each setting's kept / refused shares over the questions of ``passed``'s columns."""
    kept = passed[:, answerable].mean(axis=1)
    refused = (~passed[:, ~answerable]).mean(axis=1)
    return [Point(c, float(a), float(r)) for c, a, r in zip(configs, kept, refused, strict=True)]


def trade_off(
    questions: Sequence[Question],
    hits: Sequence[Sequence[Hit]],
    bm25: BM25Index,
    base: GuardConfig,
    grid: Sequence[float] = GRID,
    semantic: Semantic | None = None,
) -> list[Point]:
    """The kept / refused shares of every candidate setting (``base`` gives the rest;
    ``semantic`` adds the drift check)."""
    configs = settings(base, grid, bm25.n_terms)
    answerable = np.array([q.answerable for q in questions], dtype=np.bool_)
    return points_of(configs, verdicts(questions, hits, bm25, configs, semantic), answerable)


def folds_of(answerable: Sequence[bool], folds: int) -> np.ndarray:
    """Each question's fold: the answerable and the unanswerable questions are each dealt
    round-robin in file order, so every fold holds some of both."""
    out = np.empty(len(answerable), dtype=np.int64)
    for kind in (True, False):
        at = np.flatnonzero(np.asarray(answerable, dtype=np.bool_) == kind)
        out[at] = np.arange(at.size) % folds
    return out


def held_out(
    configs: Sequence[GuardConfig],
    passed: np.ndarray,
    answerable: np.ndarray,
    min_kept: float,
    folds: int = 5,
) -> HeldOut | None:
    """k-fold estimate of the fit (``passed`` from :func:`verdicts`); None when either kind
    has fewer than two questions (no fold could be fitted on both kinds)."""
    folds = min(folds, int(answerable.sum()), int((~answerable).sum()))
    if folds < 2:
        return None
    fold = folds_of(answerable.tolist(), folds)
    judged = np.empty(answerable.size, dtype=np.bool_)
    for f in range(folds):
        train, test = fold != f, fold == f
        chosen, _ = choose(points_of(configs, passed[:, train], answerable[train]), min_kept)
        judged[test] = passed[configs.index(chosen.config), test]
    return HeldOut(folds, float(judged[answerable].mean()), float((~judged[~answerable]).mean()))


def choose(points: Sequence[Point], min_kept: float) -> tuple[Point, bool]:
    """The chosen point (see the module docstring) and whether it keeps ``min_kept``."""
    good = [p for p in points if p.kept >= min_kept]
    if good:
        return max(good, key=lambda p: (p.refused, p.kept, -p.config.min_coverage)), True
    return max(points, key=lambda p: (p.kept, p.refused, -p.config.min_coverage)), False


def judged(retriever: Retriever, question: str, k: int) -> list[Hit]:
    """The passages the guard judges for ``question``: a guarded retriever's gathered
    evidence, else the retriever's hits."""
    if isinstance(retriever, GuardedRetriever):
        return retriever.gather(question, k)[1]
    return retriever.search(question, k)


def calibrate(
    questions: Sequence[Question],
    retriever: Retriever,
    bm25: BM25Index,
    *,
    k: int = 5,
    min_kept: float = 0.9,
    base: GuardConfig | None = None,
    folds: int = 5,
) -> Calibration:
    """Fit the guard for ``retriever`` on labelled ``questions``: unguarded, or a
    ``GuardedRetriever`` (its settings are ignored; the passages judged are those it gathers,
    the hits and, with ``keyword_evidence``, the keyword side's best; its drift check, when
    it has one, is part of every setting judged).

    Raises ``InputError`` unless there are answerable and unanswerable questions both,
    ``min_kept`` is in [0, 1] and ``folds`` is at least 2.
    """
    answerable = sum(q.answerable for q in questions)
    unanswerable = len(questions) - answerable
    if not answerable or not unanswerable:
        raise InputError(
            f"calibration needs answerable and unanswerable questions (got {answerable} and "
            f'{unanswerable}); add questions with "relevant": [] that the documents cannot answer'
        )
    if not 0.0 <= min_kept <= 1.0:
        raise InputError(f"min_kept must be in [0, 1], got {min_kept!r}")
    if isinstance(folds, bool) or not isinstance(folds, int) or folds < 2:
        raise InputError(f"folds must be an integer >= 2, got {folds!r}")
    hits = [judged(retriever, q.question, k) for q in questions]
    configs = settings(base or GuardConfig(), n_terms=bm25.n_terms)
    semantic = retriever.semantic if isinstance(retriever, GuardedRetriever) else None
    passed = verdicts(questions, hits, bm25, configs, semantic)
    kinds = np.array([q.answerable for q in questions], dtype=np.bool_)
    points = points_of(configs, passed, kinds)
    chosen, reached = choose(points, min_kept)
    estimate = held_out(configs, passed, kinds, min_kept, folds)
    return Calibration(tuple(points), chosen, reached, answerable, unanswerable, estimate)
