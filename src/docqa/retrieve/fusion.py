"""Rank fusion: reciprocal-rank fusion (Cormack et al., 2009), weighted; convex fusion of
per-query min-max normalised scores (``convex_fusion``); and the hybrid default,
``bounded_fusion``: a convex combination of scores on absolute scales (below).

A row at 1-based rank ``r`` in list ``name`` earns ``weights[name] / (rrf_k + r)``; a row's
fused score is the sum of what it earns in every list that has it (plain RRF: every weight
1.0). Rows are ordered by fused score descending, then by their best (smallest) rank in any
list, then by row id ascending, so every tie has one answer.

The contributions of a row are added largest first, so two rows that earn the same amounts in
different lists get bit-identical sums and tie exactly, whatever the lists' order.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from docqa.errors import InputError

DEFAULT_RRF_K = 60.0


@dataclass(frozen=True, slots=True)
class Fused:
    """One fused row: its fused ``score``, its best 1-based rank in any list, and the ranks."""

    row: int
    score: float
    best_rank: int
    ranks: Mapping[str, int]


def reciprocal_rank_fusion(
    rankings: Mapping[str, Sequence[int]],
    *,
    rrf_k: float = DEFAULT_RRF_K,
    weights: Mapping[str, float] | None = None,
    limit: int | None = None,
) -> list[Fused]:
    """Fuse ranked lists of row ids (best first) into one list, at most ``limit`` long.

    ``weights`` (None: all 1.0) must name every list, with finite weights >= 0. Raises
    ``InputError`` for a row listed twice in one list, a bad ``rrf_k``, weight or ``limit``.
    """
    if not (math.isfinite(rrf_k) and rrf_k >= 0):
        raise InputError(f"rrf_k must be a finite number >= 0, got {rrf_k!r}")
    if limit is not None and limit < 0:
        raise InputError(f"limit must be >= 0 or None, got {limit!r}")
    w = _weights(rankings, weights)
    ranks: dict[int, dict[str, int]] = {}
    for name, rows in rankings.items():
        for position, row in enumerate(rows):
            seen = ranks.setdefault(int(row), {})
            if name in seen:
                raise InputError(f"row {row} appears twice in ranking {name!r}; deduplicate it")
            seen[name] = position + 1
    fused = [
        Fused(
            row=row,
            score=math.fsum(sorted((w[n] / (rrf_k + r) for n, r in by.items()), reverse=True)),
            best_rank=min(by.values()),
            ranks=by,
        )
        for row, by in ranks.items()
    ]
    fused.sort(key=lambda f: (-f.score, f.best_rank, f.row))
    return fused if limit is None else fused[:limit]


def _weights(
    rankings: Mapping[str, object], weights: Mapping[str, float] | None
) -> dict[str, float]:
    """One finite weight >= 0 per list (all 1.0 when ``weights`` is None)."""
    if weights is None:
        return dict.fromkeys(rankings, 1.0)
    missing = set(rankings) - set(weights)
    if missing:
        raise InputError(f"no weight for rankings {sorted(missing)}; give one per ranking")
    bad = {n: v for n, v in weights.items() if not (math.isfinite(v) and v >= 0)}
    if bad:
        raise InputError(f"weights must be finite and >= 0, got {bad}")
    return {n: float(weights[n]) for n in rankings}


def _min_max(scores: Sequence[float]) -> list[float]:
    """Scores mapped onto [0, 1] (best 1, worst 0); all equal: all 1."""
    lo, hi = min(scores), max(scores)
    if not hi > lo:
        return [1.0] * len(scores)
    return [(x - lo) / (hi - lo) for x in scores]


def convex_fusion(
    scored: Mapping[str, Sequence[tuple[int, float]]],
    *,
    weights: Mapping[str, float] | None = None,
    limit: int | None = None,
) -> list[Fused]:
    """Fuse lists of ``(row, score)`` (best first) by a convex combination of their scores.

    Each list's scores are min-max normalised over the rows it returned, so they mean "how
    close to this list's best for this question" whatever the scale (cosine, BM25); a row's
    fused score is the sum over lists of ``weight * normalised score``, 0 where a list did not
    return it (the bottom of that list). ``weights`` (None: equal) name every list; they are
    scaled to sum to 1. Rows are ordered by fused score descending, then best 1-based rank in
    any list, then row id. Raises ``InputError`` as ``reciprocal_rank_fusion`` does.
    """
    if limit is not None and limit < 0:
        raise InputError(f"limit must be >= 0 or None, got {limit!r}")
    w = _weights(scored, weights)
    total = math.fsum(w.values())
    if total <= 0:
        raise InputError(f"at least one weight must be > 0, got {w}")
    ranks: dict[int, dict[str, int]] = {}
    parts: dict[int, list[float]] = {}
    for name, pairs in scored.items():
        values = [float(score) for _, score in pairs]
        if not all(math.isfinite(v) for v in values):
            raise InputError(f"ranking {name!r} holds a score that is not finite")
        for position, ((row, _), norm) in enumerate(
            zip(pairs, _min_max(values) if values else [], strict=True)
        ):
            seen = ranks.setdefault(int(row), {})
            if name in seen:
                raise InputError(f"row {row} appears twice in ranking {name!r}; deduplicate it")
            seen[name] = position + 1
            parts.setdefault(int(row), []).append(w[name] / total * norm)
    fused = [
        Fused(row, math.fsum(sorted(parts[row], reverse=True)), min(by.values()), by)
        for row, by in ranks.items()
    ]
    fused.sort(key=lambda f: (-f.score, f.best_rank, f.row))
    return fused if limit is None else fused[:limit]


# The dense side's weight in ``bounded_fusion``: 0.5 (equal weights) for a language model's
# vectors; 0 for a lexical embedder's (hashing, TF-IDF count the words BM25 counts: their
# agreement with BM25 is no new evidence, and any weight above 0 lost to BM25 alone somewhere).
# Leaving each of five collections out in turn picks 0 and 0.4-0.5 (benchmarks/quality/fusion.py,
# docs/notes/2026-12-semantic.md); nothing is fitted per collection.
MODEL_DENSE_WEIGHT = 0.5
LEXICAL_DENSE_WEIGHT = 0.0


def dense_weight_for(embedder: object) -> float:
    """The dense weight for vectors made by ``embedder``: ``LEXICAL_DENSE_WEIGHT`` when it
    declares itself lexical (a true ``lexical`` attribute), else ``MODEL_DENSE_WEIGHT``."""
    return (
        LEXICAL_DENSE_WEIGHT if getattr(embedder, "lexical", False) is True else MODEL_DENSE_WEIGHT
    )


def bounded_fusion(
    dense: Sequence[tuple[int, float]],
    keyword: Sequence[tuple[int, float]],
    *,
    keyword_bound: float,
    dense_weight: float = MODEL_DENSE_WEIGHT,
    limit: int | None = None,
    names: tuple[str, str] = ("dense", "keyword"),
) -> list[Fused]:
    """Fuse a dense list of ``(row, cosine)`` and a keyword list of ``(row, BM25 score)``, best
    first, by ``w * cosine + (1 - w) * bm25 / keyword_bound`` with ``w = dense_weight``.

    Both scales are absolute, not relative to this question's other hits: the cosine as it
    is, the BM25 score as a share of ``keyword_bound``, the best score any row could reach for
    the question (``BM25Index.max_scores``). A side that finds nothing close therefore adds
    little, where min-max scaling would stretch its best weak hit to 1. A row the dense side
    did not return counts that side's last returned cosine (no unreturned row is closer); a
    row the keyword side did not return counts 0. Ordered by fused score, then best 1-based
    rank in either list, then row id; ``Fused.ranks`` is keyed by ``names``. Raises
    ``InputError`` for a weight outside [0, 1], a bound that is negative or not finite, a
    score that is not finite, a row listed twice in one list, or a bad ``limit``.
    """
    _check_bounded(keyword_bound, dense_weight, limit)
    cosines = _scores_by_row(dense, names[0])
    shares = {
        r: s / keyword_bound if keyword_bound > 0 else 0.0
        for r, s in _scores_by_row(keyword, names[1]).items()
    }
    floor = float(dense[-1][1]) if dense else 0.0
    ranks: dict[int, dict[str, int]] = {}
    for name, pairs in zip(names, (dense, keyword), strict=True):
        for position, (row, _) in enumerate(pairs):
            ranks.setdefault(int(row), {})[name] = position + 1
    w = dense_weight
    if w == 1.0:  # the keyword side weighs nothing: 0 * a share, not 0 * inf = nan when a
        shares = {}  # score over a subnormal bound overflows
    fused = [
        Fused(
            row,
            w * cosines.get(row, floor) + (1.0 - w) * shares.get(row, 0.0),
            min(by.values()),
            by,
        )
        for row, by in ranks.items()
    ]
    fused.sort(key=lambda f: (-f.score, f.best_rank, f.row))
    return fused if limit is None else fused[:limit]


def _check_bounded(keyword_bound: float, dense_weight: float, limit: int | None) -> None:
    """``InputError`` unless the arguments of ``bounded_fusion`` are in range."""
    if limit is not None and limit < 0:
        raise InputError(f"limit must be >= 0 or None, got {limit!r}")
    if not (math.isfinite(dense_weight) and 0.0 <= dense_weight <= 1.0):
        raise InputError(f"dense_weight must be a number in [0, 1], got {dense_weight!r}")
    if not (math.isfinite(keyword_bound) and keyword_bound >= 0.0):
        raise InputError(f"keyword_bound must be a finite number >= 0, got {keyword_bound!r}")


def _scores_by_row(pairs: Sequence[tuple[int, float]], name: str) -> dict[int, float]:
    """``{row: score}``; ``InputError`` for a repeated row or a score that is not finite."""
    out: dict[int, float] = {}
    for row, score in pairs:
        if int(row) in out:
            raise InputError(f"row {row} appears twice in ranking {name!r}; deduplicate it")
        if not math.isfinite(score):
            raise InputError(f"ranking {name!r} holds a score that is not finite")
        out[int(row)] = float(score)
    return out
