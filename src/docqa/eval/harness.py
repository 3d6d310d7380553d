"""Run labelled questions through one or more retrievers and report the figures side by side.

For each mode (a named retriever): recall@k for each k and MRR@depth over the answerable
questions, recall@5 per question kind, a 95% bootstrap interval for each figure, and the guard's
behaviour: the share of unanswerable questions it refused (returned no hits) beside the share of
answerable ones it wrongly refused.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from docqa._checks import positive
from docqa.errors import InputError
from docqa.eval.metrics import bootstrap_interval, recall_at, reciprocal_rank
from docqa.eval.questions import Question
from docqa.types import Retriever

DEFAULT_KS = (1, 3, 5, 10)


@dataclass(frozen=True, slots=True)
class Figure:
    """A mean over questions with its bootstrap interval."""

    value: float
    low: float
    high: float
    n: int


@dataclass(frozen=True, slots=True)
class QuestionResult:
    """One question's outcome in one mode: the section of each hit (empty when refused)."""

    id: str
    kind: str
    sections: tuple[str, ...]  # section id of each hit, in rank order
    relevant: tuple[str, ...]

    @property
    def refused(self) -> bool:
        return not self.sections


@dataclass
class ModeReport:
    """One mode's figures: recall@k and MRR, recall@5 by kind, the guard's refusal shares."""

    mode: str
    figures: dict[str, Figure] = field(default_factory=dict)
    recall5_by_kind: dict[str, Figure] = field(default_factory=dict)
    refused_unanswerable: Figure | None = None
    refused_answerable: Figure | None = None
    results: list[QuestionResult] = field(default_factory=list)


def _figure(values: Sequence[float], rounds: int) -> Figure:
    low, high = bootstrap_interval(values, rounds=rounds)
    mean = sum(values) / len(values) if values else float("nan")
    return Figure(value=mean, low=low, high=high, n=len(values))


def run_mode(
    retriever: Retriever, questions: Sequence[Question], depth: int
) -> list[QuestionResult]:
    """Ask every question of ``retriever`` (``depth`` hits each) and keep the ranked sections."""
    results = []
    for q in questions:
        hits = retriever.search(q.question, depth)
        results.append(
            QuestionResult(q.id, q.kind, tuple(h.section for h in hits[:depth]), q.relevant)
        )
    return results


def summarise(
    mode: str, results: Sequence[QuestionResult], *, ks: Sequence[int], depth: int, rounds: int
) -> ModeReport:
    """The figures of one mode from its per-question results."""
    report = ModeReport(mode=mode, results=list(results))
    answerable = [r for r in results if r.relevant]
    unanswerable = [r for r in results if not r.relevant]
    if answerable:
        for k in ks:
            values = [recall_at(r.sections, r.relevant, k) for r in answerable]
            report.figures[f"recall@{k}"] = _figure(values, rounds)
        mrr = [reciprocal_rank(r.sections, r.relevant, depth) for r in answerable]
        report.figures[f"mrr@{depth}"] = _figure(mrr, rounds)
        by_kind: dict[str, list[float]] = defaultdict(list)
        for r in answerable:
            by_kind[r.kind].append(recall_at(r.sections, r.relevant, 5))
        report.recall5_by_kind = {kind: _figure(v, rounds) for kind, v in sorted(by_kind.items())}
        report.refused_answerable = _figure([float(r.refused) for r in answerable], rounds)
    if unanswerable:
        report.refused_unanswerable = _figure([float(r.refused) for r in unanswerable], rounds)
    return report


@dataclass
class EvalReport:
    """The figures of every mode compared, over ``questions`` labelled questions."""

    questions: int
    modes: dict[str, ModeReport]

    def to_json(self) -> dict[str, Any]:
        """``{"questions": N, "modes": {mode: {"recall@1": x, ..., "intervals": {...}}}}``."""
        out: dict[str, Any] = {"questions": self.questions, "modes": {}}
        for name, rep in self.modes.items():
            entry: dict[str, Any] = {key: fig.value for key, fig in rep.figures.items()}
            entry["recall@5_by_kind"] = {k: f.value for k, f in rep.recall5_by_kind.items()}
            entry["refused_unanswerable"] = _value(rep.refused_unanswerable)
            entry["refused_answerable"] = _value(rep.refused_answerable)
            entry["intervals"] = {key: [f.low, f.high] for key, f in rep.figures.items()}
            out["modes"][name] = entry
        return out


def _value(fig: Figure | None) -> float | None:
    return None if fig is None else fig.value


def evaluate(
    questions: Sequence[Question],
    retrievers: Mapping[str, Retriever],
    *,
    ks: Sequence[int] = DEFAULT_KS,
    rounds: int = 1000,
) -> EvalReport:
    """Every question through every retriever; ``depth`` is the largest k (MRR uses it too)."""
    if not questions:
        raise InputError("no questions to evaluate; give a file with at least one question")
    if not ks:
        raise InputError("no cut-offs to evaluate; give at least one k")
    for k in ks:
        positive(k, "k")
    depth = max(ks)
    modes = {
        name: summarise(name, run_mode(r, questions, depth), ks=ks, depth=depth, rounds=rounds)
        for name, r in retrievers.items()
    }
    return EvalReport(questions=len(questions), modes=modes)
