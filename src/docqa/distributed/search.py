"""Distributed batch search: Ray actors each own some shards, memory-mapped once.

Every call fans the whole batch out to all actors (the queries are put in the object store
once); each actor searches its shards and merges them, and the caller merges the actors'
lists in the canonical order (``merge_topk``), so the answer equals a local search. Actors are
restarted by Ray when their process dies (``max_restarts``) and calls in flight are retried
(``max_task_retries``); a restarted actor maps its shards again, so results do not change.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from docqa._checks import whole
from docqa.distributed.cluster import require_ray
from docqa.errors import InputError
from docqa.index.shards import is_sharded, open_sharded
from docqa.shards.collection import ShardedCollection, load_shard
from docqa.shards.search import ShardSet, merge_topk
from docqa.types import TopK

MAX_RESTARTS = 4


class ShardOwner:
    """The actor class: a ``ShardSet`` over ``shards`` of the index at ``root``."""

    def __init__(self, root: str, shards: Sequence[int], n_threads: int) -> None:
        index = open_sharded(root)
        self.rows = ShardSet([load_shard(index, i) for i in shards], len(index), n_threads)

    def dense(self, queries: np.ndarray, k: int, mask: np.ndarray | None) -> TopK:
        return self.rows.dense(queries, k, mask)

    def keyword(self, questions: Sequence[str], k: int, mask: np.ndarray | None) -> TopK:
        return self.rows.keyword(questions, k, mask)

    def pid(self) -> int:
        """The actor's process id (tests kill it to check the restart)."""
        return os.getpid()


def assign(counts: Sequence[int], n_actors: int) -> list[list[int]]:
    """Shard numbers per actor: largest first to the actor with the fewest rows (ties: the
    lowest actor), so rows are spread evenly; actors left without a shard are dropped."""
    load = [0] * n_actors
    owned: list[list[int]] = [[] for _ in range(n_actors)]
    for i in sorted(range(len(counts)), key=lambda s: (-counts[s], s)):
        a = min(range(n_actors), key=lambda j: (load[j], j))
        owned[a].append(i)
        load[a] += counts[i]
    return [sorted(o) for o in owned if o]


class RayShardSearcher:
    """A ``RowSearcher`` backed by ``n_actors`` Ray actors, each searching with ``n_threads``
    threads and reserving ``cpus`` of the cluster's CPUs (default ``n_threads``)."""

    def __init__(
        self,
        root: str | Path,
        n_actors: int = 2,
        *,
        n_threads: int = 1,
        cpus: float | None = None,
    ) -> None:
        ray = require_ray()
        for name, value in (("n_actors", n_actors), ("n_threads", n_threads)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InputError(f"{name} must be an int >= 1, got {value!r}")
        if not is_sharded(root):
            raise InputError(
                f"{root} is a one-directory index; Ray search needs a sharded one: rebuild it "
                f"with `docqa index FOLDER --index {root} --shard-rows 100000`"
            )
        index = open_sharded(root)
        self._n_rows = len(index)
        actor = ray.remote(num_cpus=n_threads if cpus is None else cpus, max_restarts=MAX_RESTARTS,
                           max_task_retries=MAX_RESTARTS)(ShardOwner)  # fmt: skip
        owned = assign([len(s) for s in index.shards], n_actors)
        self.actors = [actor.remote(str(Path(root).absolute()), o, n_threads) for o in owned]

    @property
    def n_rows(self) -> int:
        return self._n_rows

    def _fan_out(self, method: str, payload: Any, k: int, mask: Any, n: int) -> TopK:
        ray = require_ray()
        ref = ray.put(payload)
        mask_ref = None if mask is None else ray.put(np.asarray(mask))
        parts = ray.get([getattr(a, method).remote(ref, k, mask_ref) for a in self.actors])
        return merge_topk(parts, n, min(whole(k, "k"), self._n_rows))  # as one index: min(k, N)

    def dense(self, queries: np.ndarray, k: int, mask: np.ndarray | None) -> TopK:
        qs = np.atleast_2d(np.asarray(queries, dtype=np.float32))
        return self._fan_out("dense", qs, k, mask, qs.shape[0])

    def keyword(self, questions: Sequence[str], k: int, mask: np.ndarray | None) -> TopK:
        return self._fan_out("keyword", list(questions), k, mask, len(questions))

    def pids(self) -> list[int]:
        """Each actor's process id."""
        ray = require_ray()
        out: list[int] = ray.get([a.pid.remote() for a in self.actors])
        return out

    def close(self) -> None:
        """Stop the actors (they are not restarted)."""
        ray = require_ray()
        for a in self.actors:
            ray.kill(a, no_restart=True)
        self.actors = []


def open_ray(
    path: str | Path, n_actors: int = 2, *, n_threads: int = 1, cpus: float | None = None
) -> ShardedCollection:
    """The sharded index at ``path`` with its rows searched by Ray actors (Ray joined first,
    see ``connect``); ``.searcher.close()`` stops them."""
    searcher = RayShardSearcher(path, n_actors, n_threads=n_threads, cpus=cpus)
    return ShardedCollection.open(path, searcher=searcher)
