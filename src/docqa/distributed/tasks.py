"""Distributed index build: the file groups and shard cuts of ``docqa.shards.build`` as Ray
tasks (retried by Ray when a worker dies), the top-level manifest written by the caller."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from docqa.build import BuildReport, IndexSettings
from docqa.distributed.cluster import require_ray
from docqa.shards.build import DEFAULT_SHARD_ROWS, build_sharded

T = TypeVar("T")
R = TypeVar("R")
MAX_RETRIES = 3


def ray_runner(fn: Callable[[T], R], items: Sequence[T]) -> list[R]:
    """Run ``fn`` over ``items`` as Ray tasks (one CPU each, ``max_retries``), results in order."""
    ray = require_ray()
    remote = ray.remote(num_cpus=1, max_retries=MAX_RETRIES)(fn)
    out: list[R] = ray.get([remote.remote(item) for item in items])
    return out


def build_on_ray(
    paths: Sequence[str | Path],
    index_dir: str | Path,
    settings: IndexSettings | None = None,
    *,
    shard_rows: int = DEFAULT_SHARD_ROWS,
    groups: int | None = None,
) -> BuildReport:
    """``build_sharded`` with its tasks on the joined Ray cluster; ``groups`` defaults to
    twice the cluster's CPUs. The result equals a local build of the same files."""
    ray = require_ray()
    n = groups or max(1, 2 * int(ray.cluster_resources().get("CPU", 1)))
    report: BuildReport = build_sharded(
        paths, index_dir, settings, shard_rows=shard_rows, groups=n, runner=_any_runner
    )
    return report


def _any_runner(fn: Callable[[Any], Any], items: Sequence[Any]) -> list[Any]:
    return ray_runner(fn, items)
