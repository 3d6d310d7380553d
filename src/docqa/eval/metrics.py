"""Retrieval metrics over ranked section ids: recall@k, reciprocal rank, bootstrap intervals.

Pure functions: lists in, numbers out.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from docqa._checks import positive


def recall_at(ranked: Sequence[str], relevant: Sequence[str], k: int) -> float:
    """Share of the distinct ``relevant`` sections found among the first ``k`` of ``ranked``.

    ``ranked`` holds the section id of each hit in rank order (several chunks of one section may
    appear; a section counts once). Undefined for an empty ``relevant``: raises ValueError.
    """
    if not relevant:
        raise ValueError("recall is undefined for a question with no relevant sections")
    positive(k, "k")
    wanted = set(relevant)
    return len(wanted.intersection(ranked[:k])) / len(wanted)


def reciprocal_rank(ranked: Sequence[str], relevant: Sequence[str], k: int) -> float:
    """1 / rank of the first relevant hit within the first ``k`` (1-based), else 0."""
    wanted = set(relevant)
    for rank, section in enumerate(ranked[:k], start=1):
        if section in wanted:
            return 1.0 / rank
    return 0.0


def bootstrap_interval(
    values: Sequence[float], *, rounds: int = 1000, level: float = 0.95, seed: int = 0
) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of ``values`` (resampling the questions).

    Deterministic for a given ``seed``. An empty input gives ``(nan, nan)``.
    """
    data = np.asarray(values, dtype=np.float64)
    if data.size == 0:
        return (float("nan"), float("nan"))
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, data.size, size=(rounds, data.size))
    means = data[picks].mean(axis=1)
    tail = (1.0 - level) / 2.0
    low, high = np.quantile(means, [tail, 1.0 - tail])
    return (float(low), float(high))
