"""Paired, interleaved timing: the steadier ratio on a shared, noisy machine.

Two (or more) functions run back to back, ``rounds`` times, the order alternating. Both
halves of a pair see about the same machine load, so the median of the per-pair ratios moves
far less between runs than a ratio of two medians taken minutes apart.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


def interleaved_times(fns: dict[str, Callable[[], Any]], rounds: int) -> list[dict[str, float]]:
    """Each round runs every function once, back to back (the order reversed every other
    round), and records each one's wall time by name."""
    out = []
    steps = list(fns.items())
    for i in range(rounds):
        times = {}
        for name, fn in steps if i % 2 == 0 else steps[::-1]:
            start = time.perf_counter()
            fn()
            times[name] = time.perf_counter() - start
        out.append(times)
    return out


def paired_ratios(theirs: Callable[[], Any], ours: Callable[[], Any], rounds: int) -> list[float]:
    """Each pair's time of ``theirs`` over ``ours`` (above 1: ``ours`` is faster)."""
    return [t["t"] / t["o"] for t in interleaved_times({"t": theirs, "o": ours}, rounds)]


def paired_line(what: str, ratios: list[float]) -> str:
    """One line for a benchmark's table: the median ratio, the number of pairs, the range."""
    return (
        f"paired, interleaved: {what}: {statistics.median(ratios):.2f}x "
        f"(median of {len(ratios)} pairs, range {min(ratios):.2f}-{max(ratios):.2f})"
    )


def install_options(parser: argparse.ArgumentParser) -> None:
    """The options of a benchmark that pairs two installs' ``docqa index`` runs: rounds,
    workers and the folder of the replicated corpus and its indexes."""
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--where", type=Path, default=Path(tempfile.gettempdir()) / "docqa-bench")


def alternating(names: list[str], round_: int) -> list[str]:
    """The order of ``names`` in round ``round_`` (0-based): reversed every other round, as
    :func:`interleaved_times` runs them."""
    return names if round_ % 2 == 0 else names[::-1]
