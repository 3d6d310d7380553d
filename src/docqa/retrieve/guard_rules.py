"""The guard's rules, one function each: per passage, whether it satisfies the rule, and why.

Every rule returns a :data:`Check`: a bool array over the passages judged and one line that
explains it. A rule passes when some passage satisfies it; the guard passes when every rule it
runs does (:func:`docqa.retrieve.guard.judge_with_prefix`). The lexical rules read only the
collection's term statistics (:mod:`docqa.retrieve.evidence`):

- :func:`names_rule`: the passage holds, whole, every word of the question shaped like a name
  (and, with ``unknown_from``, every word the collection never uses);
- :func:`beyond_names_rule`: when the rest of the question weighs at least as much as its
  names, the passage also holds some of the rest;
- :func:`coverage_rule`: the passage holds at least the bar of the question's IDF mass: the
  higher of ``min_coverage`` and, with ``unknown_share_from``, the share of the mass that lies
  in words the collection never uses (:func:`unknown_share_bar`);
- :func:`drift_rule`: no word the collection never uses pulls the question away from the
  passage by ``max_drift`` or more (:mod:`docqa.retrieve.drift`);
- :func:`dense_floor_rule`, :func:`keyword_floor_rule`: the absolute score floors
  ``min_cosine`` and ``min_keyword``.

:func:`evidence_rule` chains the first three (each narrows the passages the next judges) into
the verdict's first line.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from docqa.keyword import BM25Index
from docqa.retrieve import evidence
from docqa.retrieve.drift import Semantic, drifts
from docqa.retrieve.guard_settings import GuardConfig
from docqa.retrieve.retrievers import DENSE, KEYWORD
from docqa.types import Hit

Check = tuple[np.ndarray, str]
"""A rule's outcome: bool ``(len(hits),)``, whether each passage satisfies it, and its line."""
NO_TERMS = "coverage: the question has no searchable terms (only stop words)"


@dataclass(frozen=True, slots=True)
class Asked:
    """What the lexical rules read of one question and its passages, computed once."""

    question: str
    hits: Sequence[Hit]
    bm25: BM25Index
    terms: evidence.QuestionTerms
    passages: evidence.Passages
    cover: np.ndarray  # float64 (len(hits),): each passage's share of the IDF mass
    names: list[str]  # the words every passage must hold whole

    @classmethod
    def of(
        cls, question: str, hits: Sequence[Hit], config: GuardConfig, bm25: BM25Index
    ) -> Asked | None:
        """None when the question has no searchable terms."""
        terms = evidence.question_terms(bm25, question)
        if terms.hashes.size == 0:
            return None
        passages = evidence.Passages.of(bm25, hits)
        cover = evidence.coverages(bm25, terms, hits, passages)
        words = evidence.named_words(question) if config.names else []
        if config.unknown_from is not None and bm25.n_terms >= config.unknown_from:
            words += evidence.unknown_terms(bm25, evidence.plain_words(question))
        return cls(question, hits, bm25, terms, passages, cover, list(dict.fromkeys(words)))


def evidence_rule(
    question: str, hits: Sequence[Hit], config: GuardConfig, bm25: BM25Index
) -> Check:
    """The passages that pass the names, beyond-names and coverage rules, and the line of the
    first rule no passage passes (else the coverage line)."""
    asked = Asked.of(question, hits, config, bm25)
    if asked is None:
        return np.zeros(len(hits), dtype=np.bool_), NO_TERMS
    eligible, line = names_rule(asked)
    if not eligible.any():
        return eligible, line
    if config.beyond_names:
        beyond, line = beyond_names_rule(asked)
        eligible &= beyond
        if not eligible.any():
            return eligible, line
    return coverage_rule(asked, eligible, config)


def names_rule(asked: Asked) -> Check:
    """Whether each passage holds every name asked, whole; the line names those no passage
    holds (and which the collection never uses)."""
    words, bm25 = asked.names, asked.bm25
    held = evidence.name_holders(bm25, words, asked.hits, asked.passages)
    good: np.ndarray = np.asarray(held.all(axis=0))
    if not words:
        return good, "names: the question names nothing"
    if good.any():
        return good, f"names: {int(good.sum())} of {good.size} passages hold {', '.join(words)}"
    missing = [w for w, row in zip(words, held, strict=True) if not row.any()]
    if not missing:
        return good, f"names: no passage holds {', '.join(words)} together"
    unknown = set(evidence.unknown_terms(bm25, missing))
    where = ("not in the collection" if w in unknown else "not in the passages" for w in missing)
    return good, "names: " + ", ".join(
        f"{w} ({place})" for w, place in zip(missing, where, strict=True)
    )


def beyond_names_rule(asked: Asked) -> Check:
    """Whether each passage holds some term besides the names, when the rest of the question
    weighs at least as much as its names (else every passage does)."""
    words, hits = asked.names, asked.hits
    rest = evidence.without(asked.bm25, asked.terms, words)
    if not words or rest.mass <= 0 or rest.mass < asked.terms.mass - rest.mass:
        return np.ones(len(hits), dtype=np.bool_), "names: nothing else is asked"
    good = np.asarray(evidence.coverages(asked.bm25, rest, hits, asked.passages) > 0)
    return good, f"names: the passages holding {', '.join(words)} hold nothing else asked"


def unknown_share_bar(asked: Asked, config: GuardConfig) -> tuple[float, str] | None:
    """The share of the question's IDF mass in words the collection never uses, and how the
    coverage line names it; None when the rule is off for this collection's size."""
    gate = config.unknown_share_from
    if gate is None or asked.bm25.n_terms < gate:
        return None
    share = evidence.unknown_share(asked.bm25, asked.terms)
    unknown = evidence.unknown_terms(asked.bm25, evidence.plain_words(asked.question))
    return (
        share,
        f"{share:.2f}, the share in words the collection never uses ({', '.join(unknown)})",
    )


def coverage_rule(asked: Asked, eligible: np.ndarray, config: GuardConfig) -> Check:
    """Which ``eligible`` passages hold at least the bar of the question's IDF mass (the
    higher of ``min_coverage`` and :func:`unknown_share_bar`); the line reports the best."""
    need, what = config.min_coverage, f"min_coverage {config.min_coverage}"
    share = unknown_share_bar(asked, config)
    if share is not None and share[0] > need:
        need, what = share
    at = int(np.flatnonzero(eligible)[np.argmax(asked.cover[eligible])])
    best, words = float(asked.cover[at]), asked.names
    which = f"holding every name ({', '.join(words)})" if words else "found"
    return eligible & (asked.cover >= need), (
        f"coverage: the best passage {which}, {asked.hits[at].id}, holds {best:.2f} of the "
        f"question's IDF mass {'>=' if best >= need else '<'} {what}"
    )


def drift_rule(
    question: str,
    hits: Sequence[Hit],
    good: np.ndarray,
    n: int,
    config: GuardConfig,
    bm25: BM25Index,
    semantic: Semantic | None,
) -> Check | None:
    """The passages that hold the evidence (``good``) and that no question word the
    collection never uses pulls the question away from by ``max_drift`` or more; None when
    the rule does not run (off, no semantic side, no passage to judge, or no such word).

    The best-ranked such passage among the first ``n`` hits (the mode's own) is judged
    first, alone: when it does not drift, both verdicts (the passages', the hits') are known
    and the other passages need not be embedded. Otherwise every passage is judged. The
    passages left unjudged count as not passing, which changes no verdict: one passage
    passing is all a rule asks."""
    if not config.drift or semantic is None or not good.any():
        return None
    words = list(dict.fromkeys(evidence.unknown_terms(bm25, evidence.plain_words(question))))
    if not words:
        return None
    threshold = config.max_drift if config.max_drift is not None else semantic.threshold
    if threshold is None:  # said, so that --explain-guard shows what a model would have judged
        why = "MiniLM is not installed" if config.drift_model == "auto" else "drift_model embedder"
        return good, (
            f"drift: not checked for {', '.join(words)} (words the collection never uses): "
            f"the {semantic.embedder.name} embedder has no measured threshold and {why}"
        )
    at = np.flatnonzero(good)
    gains, which = _gains(question, words, hits, at, n, threshold, semantic)
    kept = gains < threshold
    out = np.zeros(len(hits), dtype=np.bool_)
    out[at[kept]] = True
    j = int(np.argmin(gains))  # the passage that drifts least, kept or not
    word, gain, hit = words[int(which[j])], float(gains[j]), hits[int(at[j])]
    if kept.any():
        closer = f"at most {gain:.2f} closer" if gain > 0 else f"no closer ({gain:+.2f})"
        return out, (
            f"drift{semantic.by}: removing a word the collection never uses "
            f"({', '.join(words)}) brings the question {closer} to {hit.id} < max_drift "
            f"{threshold}"
        )
    return out, (
        f"drift{semantic.by}: without {word} the question is {gain:.2f} closer to {hit.id}, "
        f"the passage it drifts least from (>= max_drift {threshold}): the passages do not "
        f"speak of {word}"
    )


def _gains(
    question: str,
    words: list[str],
    hits: Sequence[Hit],
    at: np.ndarray,
    n: int,
    threshold: float,
    semantic: Semantic,
) -> tuple[np.ndarray, np.ndarray]:
    """How much closer each passage ``at`` comes without its worst word, and which word:
    the first of the first ``n`` alone when it passes, else every one (inf: not judged)."""
    asked = semantic.asked(question, words)
    gains, which = np.full(at.size, np.inf), np.zeros(at.size, dtype=np.int64)
    first = 1 if at[0] < n else 0
    if first:
        gains[:1], which[:1] = drifts(asked, semantic.passage_vectors([hits[int(at[0])]]))
    if not (first and gains[0] < threshold):
        rest = [hits[int(i)] for i in at[first:]]
        if rest:
            gains[first:], which[first:] = drifts(asked, semantic.passage_vectors(rest))
    return gains, which


def dense_floor_rule(hits: Sequence[Hit], threshold: float) -> Check:
    """Whether each passage's dense score reaches ``threshold`` (``min_cosine``)."""
    good = np.array([DENSE in h.components and h.components[DENSE].score >= threshold
                     for h in hits], dtype=np.bool_)  # fmt: skip
    scores = [h.components[DENSE].score for h in hits if DENSE in h.components]
    if not scores:
        return good, "dense: no dense hit"
    ok = max(scores) >= threshold
    return (
        good,
        f"dense: best cosine {max(scores):.3f} {'>=' if ok else '<'} min_cosine {threshold}",
    )


def keyword_floor_rule(
    question: str, hits: Sequence[Hit], threshold: float, bm25: BM25Index
) -> Check:
    """Whether each passage's BM25 score over the question's maximum attainable score reaches
    ``threshold`` (``min_keyword``)."""
    scores = np.array([h.components[KEYWORD].score if KEYWORD in h.components else np.nan
                       for h in hits], dtype=np.float64)  # fmt: skip
    found = ~np.isnan(scores)
    if not found.any():
        return found, "keyword: no keyword hit"
    bound = float(bm25.max_scores([question])[0])
    shares = scores / bound if bound > 0 else np.where(found, 0.0, np.nan)
    good = found & (np.nan_to_num(shares, nan=-np.inf) >= threshold)
    share = float(np.nanmax(shares))
    sign = ">=" if share >= threshold else "<"
    return good, f"keyword: best score / max {share:.3f} {sign} min_keyword {threshold}"
