"""The weak-retrieval guard: return nothing when the best evidence is too weak to answer from.

Each component present in the hits is judged on its best hit:

- ``"dense"``: the best cosine similarity must reach ``min_cosine``;
- ``"keyword"``: the best BM25 score divided by the question's maximum attainable score
  (``BM25Index.max_scores``: as if one row held every question term at unbounded tf) must
  reach ``min_keyword``, so one threshold means about the same on any corpus;
- hybrid hits carry both; ``rule="any"`` passes when either passes, ``"all"`` needs both.

No hits, or hits with no component the guard knows, fail (the answer path then refuses
without calling a model).

Defaults, measured (``python benchmarks/guard_sweep.py``) on the sample library's 38 labelled
questions (32 answerable, 6 unanswerable), hashing-256 embedder, k = 5: a ``min_cosine`` from
0.07 to 0.16 refuses no answerable question and 1 of 6 unanswerable ones; a ``min_keyword``
from 0.04 to 0.06 refuses none answerable and 4 of 6 unanswerable. The defaults are the middles,
0.12 and 0.05; hybrid uses ``rule="all"`` (both components must pass, and a side that found
nothing fails), which refuses 4 of 6 unanswerable and no answerable question (``"any"``: 1). The dense threshold depends on the
embedder (TF-IDF cosines run lower: 0.01..0.13 is safe there); pass a GuardConfig to change it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

import numpy as np

from docqa.errors import InputError
from docqa.retrieve.retrievers import DENSE, KEYWORD
from docqa.types import Hit, Retriever


@dataclass(frozen=True, slots=True)
class GuardConfig:
    """Thresholds of the guard (measured defaults, see the module docstring)."""

    min_cosine: float = 0.12
    min_keyword: float = 0.05
    rule: Literal["any", "all"] = "all"

    def __post_init__(self) -> None:
        for name in ("min_cosine", "min_keyword"):
            if not math.isfinite(getattr(self, name)):
                raise InputError(f"guard {name} must be finite, got {getattr(self, name)!r}")
        if self.rule not in ("any", "all"):
            raise InputError(f"guard rule must be 'any' or 'all', got {self.rule!r}")


@dataclass(frozen=True, slots=True)
class Verdict:
    """Whether the evidence passed, and one line per component judged (or why none was)."""

    passed: bool
    reasons: tuple[str, ...]


@runtime_checkable
class KeywordBounded(Protocol):
    """A retriever that knows a question's maximum attainable BM25 score."""

    def max_keyword_score(self, question: str) -> float: ...


def judge(
    hits: Sequence[Hit],
    config: GuardConfig,
    *,
    keyword_max: float | None,
    expect: Sequence[str] = (),
) -> Verdict:
    """Judge ``hits`` for one question; ``keyword_max`` is needed when a keyword score is there.

    ``expect`` names the components the retriever produces: one of them with no hit at all
    counts as a failed check (a hybrid search whose keyword side found nothing has no keyword
    evidence, and under ``rule="all"`` that refuses).
    """
    checks: list[tuple[bool, str]] = [
        (False, f"{name}: no hit") for name in expect if not any(name in h.components for h in hits)
    ]
    dense = [h.components[DENSE].score for h in hits if DENSE in h.components]
    if dense:
        checks.append(_check("dense: best cosine", max(dense), "min_cosine", config.min_cosine))
    keyword = [h.components[KEYWORD].score for h in hits if KEYWORD in h.components]
    if keyword:
        if keyword_max is None:
            raise InputError("keyword hits need keyword_max (the question's maximum BM25 score)")
        share = max(keyword) / keyword_max if keyword_max > 0 else 0.0
        checks.append(_check("keyword: best score / max", share, "min_keyword", config.min_keyword))
    if not checks:
        return Verdict(False, ("no hits with a dense or keyword score",))
    combine = any if config.rule == "any" else all
    return Verdict(combine(ok for ok, _ in checks), tuple(reason for _, reason in checks))


def _check(what: str, value: float, name: str, threshold: float) -> tuple[bool, str]:
    """Whether ``value`` reaches ``threshold``, and the line that says so."""
    ok = value >= threshold
    return ok, f"{what} {value:.3f} {'>=' if ok else '<'} {name} {threshold}"


class GuardedRetriever:
    """A retriever that returns no hits when the guard judges the evidence weak."""

    def __init__(self, retriever: Retriever, config: GuardConfig | None = None) -> None:
        self.retriever = retriever
        self.config = config or GuardConfig()

    def check(
        self, question: str, k: int, *, mask: np.ndarray | None = None
    ) -> tuple[list[Hit], Verdict]:
        """The inner retriever's hits (kept even when weak) and the verdict on them."""
        hits = self.retriever.search(question, k, mask=mask)
        keyword_max = None
        if isinstance(self.retriever, KeywordBounded) and any(
            KEYWORD in h.components for h in hits
        ):
            keyword_max = self.retriever.max_keyword_score(question)
        expect = tuple(getattr(self.retriever, "components", ()))
        return hits, judge(hits, self.config, keyword_max=keyword_max, expect=expect)

    def search(self, question: str, k: int, *, mask: np.ndarray | None = None) -> list[Hit]:
        """The hits when they pass the guard, else an empty list."""
        hits, verdict = self.check(question, k, mask=mask)
        return hits if verdict.passed else []
