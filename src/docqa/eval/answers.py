"""Answer-level checks for the eval harness: ``must_contain``, citations, and judged support.

Per mode, every question is answered; the figures are shares over the questions they apply
to, each with a 95% bootstrap interval: ``facts`` (answers holding all their ``must_contain``
strings, case-insensitive, in their own words: a string found only inside a citation's id does
not count; over the questions that have some; a refusal holds none), ``bad_citations``
(answers citing an id that was not retrieved), and with a judge model (:mod:`docqa.eval.judge`) ``supported`` (the judge
said yes over the cited passages; answers citing nothing count as not supported) and
``overlap`` (mean share of the answer's content words found in its cited passages), both over
the answers not refused.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from docqa.answering import Context, answer
from docqa.eval.judge import ask_judge, cited_hits, overlap
from docqa.eval.metrics import bootstrap_interval
from docqa.eval.questions import Question
from docqa.support import without_citations
from docqa.types import Answer, ModelClient, Retriever


@dataclass
class AnswerCounts:
    """Per-mode tallies of ``check_answers``; ``failed`` lists the must_contain misses."""

    asked: int = 0
    refused: int = 0
    bad_citations: int = 0
    must_contain_checked: int = 0
    must_contain_ok: int = 0
    failed: list[str] = field(default_factory=list)
    values: dict[str, list[float]] = field(default_factory=dict)
    unclear: int = 0
    unsupported: list[str] = field(default_factory=list)

    def add(self, name: str, value: float) -> None:
        self.values.setdefault(name, []).append(value)

    def to_json(self, rounds: int) -> dict[str, Any]:
        out: dict[str, Any] = {
            "asked": self.asked,
            "refused": self.refused,
            "bad_citations": self.bad_citations,
            "must_contain_checked": self.must_contain_checked,
            "must_contain_ok": self.must_contain_ok,
            "failed": self.failed,
        }
        figures = {}
        for name, values in self.values.items():
            low, high = bootstrap_interval(values, rounds=rounds)
            figures[name] = {"value": sum(values) / len(values), "low": low, "high": high,
                             "n": len(values)}  # fmt: skip
        out["figures"] = figures
        if "supported" in self.values:
            out["judge"] = {"unclear": self.unclear, "unsupported": self.unsupported}
        return out


def _tally(counts: AnswerCounts, q: Question, a: Answer, judge: ModelClient | None) -> None:
    counts.asked += 1
    counts.refused += int(a.refused)
    counts.bad_citations += int(bool(a.not_retrieved))
    counts.add("bad_citations", float(bool(a.not_retrieved)))
    if q.must_contain:
        counts.must_contain_checked += 1
        said = without_citations(a.text).lower()
        ok = all(s.lower() in said for s in q.must_contain)
        counts.must_contain_ok += int(ok)
        counts.add("facts", float(ok))
        if not ok:
            counts.failed.append(q.id)
    if judge is None or a.refused:
        return
    verdict = ask_judge(judge, a) if cited_hits(a) else False
    counts.unclear += int(verdict is None)
    counts.add("supported", float(bool(verdict)))
    counts.add("overlap", overlap(a))
    if not verdict:
        counts.unsupported.append(q.id)


def check_answers(
    questions: Sequence[Question],
    retrievers: Mapping[str, Retriever],
    model: ModelClient,
    *,
    k: int = 3,
    judge: ModelClient | None = None,
    rounds: int = 1000,
    context: Context | None = None,
) -> dict[str, dict[str, Any]]:
    """Answer every question with every retriever (``context`` widening the passages, as in
    :func:`docqa.answering.answer`); the tallies and figures per mode (see the module docstring)."""
    out: dict[str, dict[str, Any]] = {}
    for mode, retriever in retrievers.items():
        counts = AnswerCounts()
        for q in questions:
            _tally(counts, q, answer(q.question, retriever, model, k, context=context), judge)
        out[mode] = counts.to_json(rounds)
    return out
