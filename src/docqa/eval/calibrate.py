"""Fit the guard to a collection's own labelled questions: the kept / refused trade-off curve.

Each question is searched once (the bare retriever, ``k`` hits); every candidate setting is then
judged on those same hits, so the curve costs one search per question. A setting is a
``min_coverage`` on a grid, with unknown words counted as names or not (``unknown_from`` 0 or
None). The chosen point refuses the most unanswerable questions among those keeping at least
``min_kept`` of the answerable ones (ties: more kept, then the lower threshold); when none keeps
that many, the one keeping the most (ties: more refused).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from docqa.errors import InputError
from docqa.eval.questions import Question
from docqa.keyword import BM25Index
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
class Calibration:
    points: tuple[Point, ...]
    chosen: Point
    reached: bool  # whether the chosen point keeps at least min_kept
    answerable: int
    unanswerable: int


def trade_off(
    questions: Sequence[Question],
    hits: Sequence[Sequence[Hit]],
    bm25: BM25Index,
    base: GuardConfig,
    grid: Sequence[float] = GRID,
) -> list[Point]:
    """The kept / refused shares of every candidate setting (``base`` gives the rest)."""
    out = []
    for unknown in (None, 0):
        for threshold in grid:
            config = replace(base, min_coverage=threshold, unknown_from=unknown)
            passed = [
                judge(q.question, h, config, bm25).passed
                for q, h in zip(questions, hits, strict=True)
            ]
            kept = [p for q, p in zip(questions, passed, strict=True) if q.answerable]
            refused = [not p for q, p in zip(questions, passed, strict=True) if not q.answerable]
            out.append(Point(config, sum(kept) / len(kept), sum(refused) / len(refused)))
    return out


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
) -> Calibration:
    """Fit the guard for ``retriever`` on labelled ``questions``: unguarded, or a
    ``GuardedRetriever`` (its settings are ignored; the passages judged are those it gathers,
    the hits and, with ``keyword_evidence``, the keyword side's best).

    Raises ``InputError`` unless there are answerable and unanswerable questions both, and
    ``min_kept`` is in [0, 1].
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
    hits = [judged(retriever, q.question, k) for q in questions]
    points = trade_off(questions, hits, bm25, base or GuardConfig())
    chosen, reached = choose(points, min_kept)
    return Calibration(tuple(points), chosen, reached, answerable, unanswerable)
