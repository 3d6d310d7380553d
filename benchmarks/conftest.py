"""Shared benchmark fixtures: the English corpus and a throughput table printed at the end.

Use ``measure(group, name, fn, megabytes, baseline=...)`` inside a benchmark: it times ``fn``
with pytest-benchmark (one untimed warm-up round, then ``rounds`` timed rounds), records the
median, and returns ``fn``'s result so the caller can check it. At the end of the session one
table per group shows MB/s and the ratio of each row to the group's baseline row.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import pytest
from corpus import Corpus, corpus

T = TypeVar("T")


@dataclass(frozen=True)
class Row:
    name: str
    megabytes: float
    seconds: float  # median of the timed rounds
    target: float | None  # wanted ratio to the baseline, if any

    @property
    def mb_per_s(self) -> float:
        return self.megabytes / self.seconds


@dataclass
class RatioTable:
    """Medians grouped by input; each group has at most one baseline row."""

    groups: dict[str, list[Row]] = field(default_factory=dict)
    baselines: dict[str, str] = field(default_factory=dict)

    def add(self, group: str, row: Row, *, baseline: bool = False) -> None:
        self.groups.setdefault(group, []).append(row)
        if baseline:
            self.baselines[group] = row.name

    def render(self) -> str:
        lines = []
        for group, rows in self.groups.items():
            base = next((r for r in rows if r.name == self.baselines.get(group)), None)
            lines.append(f"\n{group}  (ratio vs {base.name if base else 'no baseline'})")
            lines.append(f"  {'':44} {'MB':>7} {'median s':>9} {'MB/s':>8} {'ratio':>7}  target")
            for r in rows:
                ratio = r.mb_per_s / base.mb_per_s if base else float("nan")
                verdict = (
                    ""
                    if r.target is None
                    else (f">= {r.target:g}x {'met' if ratio >= r.target else 'MISSED'}")
                )
                lines.append(
                    f"  {r.name:44} {r.megabytes:7.2f} {r.seconds:9.4f} "
                    f"{r.mb_per_s:8.1f} {ratio:6.2f}x  {verdict}"
                )
        return "\n".join(lines)


_TABLE = pytest.StashKey[RatioTable]()


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_TABLE] = RatioTable()


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    table = config.stash[_TABLE]
    if table.groups:
        terminalreporter.write_sep("=", "throughput (medians)")
        terminalreporter.write_line(table.render())


@pytest.fixture(scope="session")
def english() -> Corpus:
    """At least 20 MB of real English text (``.text`` and 200-word ``.chunks``)."""
    return corpus(20.0)


@pytest.fixture
def measure(benchmark: Any, pytestconfig: pytest.Config) -> Callable[..., Any]:
    """Time a callable, record its median throughput in the session table, return its result."""

    def run(
        group: str,
        name: str,
        fn: Callable[[], T],
        megabytes: float,
        *,
        rounds: int = 5,
        baseline: bool = False,
        target: float | None = None,
    ) -> T:
        benchmark.group = group
        result: T = benchmark.pedantic(fn, rounds=rounds, iterations=1, warmup_rounds=1)
        if benchmark.stats is not None:  # None under --benchmark-disable
            seconds = benchmark.stats.stats.median
            benchmark.extra_info["MB/s"] = round(megabytes / seconds, 1)
            row = Row(name, megabytes, seconds, target)
            pytestconfig.stash[_TABLE].add(group, row, baseline=baseline)
        return result

    return run
