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
from collections.abc import Callable, Hashable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

K = TypeVar("K", bound=Hashable)


def interleaved_rounds(
    fns: Mapping[K, Callable[[int], Any]],
    rounds: int,
    *,
    warmup: int = 0,
    check: Callable[[int, dict[K, Any]], None] | None = None,
) -> list[dict[K, float]]:
    """Each round ``r`` runs every function once as ``fn(r)``, back to back (the order reversed
    every other round, as :func:`alternating` gives it), and records each one's wall time by
    name. ``warmup`` untimed rounds come first, numbered ``-warmup .. -1`` (a function can take
    its input from the end of a list for them). ``check(r, results)``, if given, sees each
    round's return values by name after the round, outside the timed part."""
    out = []
    names = list(fns)
    for r in range(-warmup, rounds):
        times, results = {}, {}
        for name in alternating(names, r):
            start = time.perf_counter()
            results[name] = fns[name](r)
            times[name] = time.perf_counter() - start
        if check is not None:
            check(r, results)
        if r >= 0:
            out.append(times)
    return out


def interleaved_times(
    fns: Mapping[K, Callable[[], Any]], rounds: int, *, warmup: int = 0
) -> list[dict[K, float]]:
    """:func:`interleaved_rounds` for functions that take no round number."""
    return interleaved_rounds(
        {name: _ignoring_round(fn) for name, fn in fns.items()}, rounds, warmup=warmup
    )


def _ignoring_round(fn: Callable[[], Any]) -> Callable[[int], Any]:
    return lambda _round: fn()


def ratios(times: Sequence[Mapping[K, float]], theirs: K, ours: K) -> list[float]:
    """Each round's time of ``theirs`` over ``ours`` (above 1: ``ours`` is faster)."""
    return [t[theirs] / t[ours] for t in times]


def paired_ratios(theirs: Callable[[], Any], ours: Callable[[], Any], rounds: int) -> list[float]:
    """Each pair's time of ``theirs`` over ``ours`` (above 1: ``ours`` is faster)."""
    return ratios(interleaved_times({"t": theirs, "o": ours}, rounds), "t", "o")


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


def alternating(names: list[K], round_: int) -> list[K]:
    """The order of ``names`` in round ``round_``: reversed every other round, as
    :func:`interleaved_rounds` runs them."""
    return names if round_ % 2 == 0 else names[::-1]
