"""Answer-level checks for the eval harness: ``must_contain`` and the citation check."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from docqa.answer import answer
from docqa.eval.questions import Question
from docqa.types import ModelClient, Retriever


@dataclass
class AnswerCounts:
    """Per-mode tallies of ``check_answers``; ``failed`` lists the must_contain misses."""

    asked: int = 0
    refused: int = 0
    bad_citations: int = 0
    must_contain_checked: int = 0
    must_contain_ok: int = 0
    failed: list[str] = field(default_factory=list)


def check_answers(
    questions: Sequence[Question],
    retrievers: Mapping[str, Retriever],
    model: ModelClient,
    *,
    k: int = 3,
) -> dict[str, dict[str, Any]]:
    """Answer every question with every retriever; count per mode how many answers contain
    all their ``must_contain`` strings (case-insensitive), how many cite an id that was not
    retrieved, and how many were refused."""
    out: dict[str, dict[str, Any]] = {}
    for mode, retriever in retrievers.items():
        counts = AnswerCounts()
        for q in questions:
            a = answer(q.question, retriever, model, k)
            counts.asked += 1
            counts.refused += int(a.refused)
            counts.bad_citations += int(bool(a.not_retrieved))
            if q.must_contain:
                counts.must_contain_checked += 1
                ok = all(s.lower() in a.text.lower() for s in q.must_contain)
                counts.must_contain_ok += int(ok)
                if not ok:
                    counts.failed.append(q.id)
        out[mode] = asdict(counts)
    return out
