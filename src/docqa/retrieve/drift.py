"""The drift check: does a word the collection never uses pull the question away from the passage?

The lexical checks (:mod:`docqa.retrieve.guard`) cannot tell "How do I renew my passport?" from
"Can someone bring books to my house if I am ill?" over a library's pages: both ask, in words
the collection uses every day, about one thing it never names. What tells them apart is
meaning: the library's pages speak of the sick reader's home, and of no passport. A semantic
embedder sees that. Remove the word the collection never uses and compare the question's cosine
to the passage before and after:

- a word the passage speaks of in other words ("house" beside "home delivery") brings the
  question *closer* to it, so removing it lowers the cosine;
- a word the passage does not speak of ("passport") pulls the question *away* from it, so
  removing it raises the cosine. By at least ``max_drift``, the passage does not answer.

The check needs a semantic embedder with a measured threshold: an embedder says so with a
``guard_drift`` attribute (MiniLM: 0.1, ``docs/notes/2026-12-guard.md``). Lexical embedders (hashing,
TF-IDF) have none: removing a word no row holds only ever raises their cosines, which says
nothing the lexical checks do not. So over a lexical index MiniLM judges instead, when it is
installed (the guard's ``drift_model``, :func:`docqa.retrieve.guard.drift_side`). Cosines are
taken against the passages' stored vectors when the collection has them in the judging
model's space (``vectors``), else against the embedded passage texts.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from docqa.embed.protocol import Embedder
from docqa.text.sections import embed_text
from docqa.types import Hit


def measured_drift(embedder: Embedder) -> float | None:
    """The drift threshold measured for ``embedder`` (its ``guard_drift``), else None."""
    value = getattr(embedder, "guard_drift", None)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def without_word(question: str, word: str) -> str:
    """``question`` with every whole occurrence of ``word`` removed (one space left)."""
    return re.sub(rf"(?<!\w){re.escape(word)}(?!\w)", " ", question)


def variants(question: str, words: Sequence[str]) -> list[str]:
    """``question``, then ``question`` without each of ``words`` in turn."""
    return [question, *(without_word(question, w) for w in words)]


def drifts(asked: np.ndarray, passages: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per passage, the most removing one word raises the question's cosine to it, and which
    word: ``asked`` is ``(1 + words, dim)`` (the question, then each variant), ``passages``
    ``(n, dim)``, all unit rows; returns ``float64 (n,)`` and ``int64 (n,)`` (ties: the first
    word)."""
    scores = np.asarray(passages, dtype=np.float64) @ np.asarray(asked, dtype=np.float64).T
    gains = scores[:, 1:] - scores[:, :1]
    which = np.argmax(gains, axis=1)
    return gains[np.arange(gains.shape[0]), which], which.astype(np.int64)


def drifts_reference(
    asked: Sequence[Sequence[float]], passages: Sequence[Sequence[float]]
) -> tuple[list[float], list[int]]:
    """The slow twin of :func:`drifts`: one dot product at a time, in Python floats."""

    def dot(a: Sequence[float], b: Sequence[float]) -> float:
        return sum(float(x) * float(y) for x, y in zip(a, b, strict=True))

    best: list[float] = []
    which: list[int] = []
    for p in passages:
        base = dot(asked[0], p)
        gains = [dot(v, p) - base for v in asked[1:]]
        at = max(range(len(gains)), key=lambda i: (gains[i], -i))
        best.append(gains[at])
        which.append(at)
    return best, which


@dataclass(slots=True)
class Semantic:
    """What the drift check needs: the judging ``embedder`` (the collection's, or a model
    judging beside it, named by ``by``), its measured ``threshold`` (None: the check runs only
    when the guard's settings give ``max_drift``) and, when the collection stores them in that
    model's space, a function giving the hits' stored ``vectors`` (None: the hits' texts are
    embedded). ``memo`` (a dict) keeps each question's embedded variants and each embedded
    passage (by id: one collection's), for callers that judge the same questions many times
    (``docqa calibrate``)."""

    embedder: Embedder
    threshold: float | None
    vectors: Callable[[Sequence[Hit]], np.ndarray] | None = None
    memo: dict[tuple[str, ...], np.ndarray] | None = field(default=None)
    by: str = ""  # said after "drift" when another model than the collection's judges

    def warm(self) -> None:
        """Load the model now (a service does this before it is ready), not on a request."""
        self.embedder.embed(["warm up the guard"], query=True)

    def passage_vectors(self, hits: Sequence[Hit]) -> np.ndarray:
        """The hits' vectors: stored, else their embed texts embedded (each passage once
        while there is a ``memo``)."""
        if self.vectors is not None:
            return self.vectors(hits)
        memo = self.memo
        if memo is None:
            return self.embedder.embed([_text(h) for h in hits])
        missing = list({h.id: h for h in hits if ("passage", h.id) not in memo}.values())
        if missing:
            for hit, row in zip(
                missing, self.embedder.embed([_text(h) for h in missing]), strict=True
            ):
                memo["passage", hit.id] = row
        return np.stack([memo["passage", h.id] for h in hits])

    def asked(self, question: str, words: Sequence[str]) -> np.ndarray:
        """``question`` and its :func:`variants` without each of ``words``, embedded."""
        key = ("question", question, *words)
        asked = None if self.memo is None else self.memo.get(key)
        if asked is None:
            asked = self.embedder.embed(variants(question, words), query=True)
            if self.memo is not None:
                self.memo[key] = asked
        return asked

    def drifts(
        self, question: str, words: Sequence[str], hits: Sequence[Hit]
    ) -> tuple[np.ndarray, np.ndarray]:
        """:func:`drifts` of ``question`` without each of ``words`` against ``hits``."""
        return drifts(self.asked(question, words), self.passage_vectors(hits))


def _text(hit: Hit) -> str:
    return embed_text(hit.chunk) if hit.chunk is not None else ""
