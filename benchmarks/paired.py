"""Paired, interleaved timing: the steadier ratio on a shared, noisy machine.

Two functions run back to back, ``rounds`` times, the order alternating. Both halves of a
pair see about the same machine load, so the median of the per-pair ratios moves far less
between runs than a ratio of two medians taken minutes apart.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any


def paired_ratios(theirs: Callable[[], Any], ours: Callable[[], Any], rounds: int) -> list[float]:
    """Each pair's time of ``theirs`` over ``ours`` (above 1: ``ours`` is faster)."""
    out = []
    for i in range(rounds):
        times = {}
        pair = (("t", theirs), ("o", ours)) if i % 2 == 0 else (("o", ours), ("t", theirs))
        for name, fn in pair:
            start = time.perf_counter()
            fn()
            times[name] = time.perf_counter() - start
        out.append(times["t"] / times["o"])
    return out


def paired_line(what: str, ratios: list[float]) -> str:
    """One line for a benchmark's table: the median ratio, the number of pairs, the range."""
    return (
        f"paired, interleaved: {what}: {statistics.median(ratios):.2f}x "
        f"(median of {len(ratios)} pairs, range {min(ratios):.2f}-{max(ratios):.2f})"
    )
