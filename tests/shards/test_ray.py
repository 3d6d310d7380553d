"""docqa on a local Ray (2 CPUs, one per session): distributed build = local build, Ray batch
search = local batch search = one-by-one search, and a killed actor changes nothing."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from shard_helpers import QUESTIONS, tree_bytes

from docqa.cli import main
from docqa.collection import Collection
from docqa.errors import InputError
from docqa.shards.build import build_sharded
from docqa.shards.collection import ShardedCollection

pytest.importorskip("ray", reason="Ray is not installed: pip install 'docqa[ray]'")

from docqa.distributed import RayShardSearcher, build_on_ray, open_ray, ray_runner
from docqa.distributed.search import assign

MODES = ("dense", "keyword", "hybrid")


@pytest.fixture(scope="module")
def sharded(corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("ray") / "ix"
    build_sharded([corpus], target, shard_rows=5)
    return target


def test_distributed_build_equals_local_build(
    ray_session: Any, corpus: Path, sharded: Path, tmp_path: Path
) -> None:
    report = build_on_ray([corpus], tmp_path / "ray-ix", shard_rows=5, groups=3)
    assert tree_bytes(tmp_path / "ray-ix") == tree_bytes(sharded)
    assert report.chunks == len(Collection.open(sharded).chunks)


def test_a_task_whose_worker_dies_is_retried(ray_session: Any, tmp_path: Path) -> None:
    marker = tmp_path / "marker"

    def dies_once(item: int) -> int:  # nested: Ray ships it by value to the worker
        if not marker.exists():
            marker.touch()
            os.kill(os.getpid(), signal.SIGKILL)
        return item * 2

    assert ray_runner(dies_once, [1, 2, 3]) == [2, 4, 6]
    assert marker.exists()


@pytest.fixture(scope="module")
def remote(ray_session: Any, sharded: Path) -> Iterator[ShardedCollection]:
    """The sharded index searched by 2 actors, shared by the module's tests."""
    collection = open_ray(sharded, 2, cpus=0.5)  # leaves a CPU for the other tests' actors
    yield collection
    collection.searcher.close()  # type: ignore[attr-defined]


@pytest.mark.parametrize("mode", MODES)
def test_ray_batch_equals_local_batch_and_one_by_one(
    remote: ShardedCollection, sharded: Path, mode: str
) -> None:
    questions = QUESTIONS * 2
    local = Collection.open(sharded)
    one_by_one = [local.retriever(mode, guard=False).search(q, 4) for q in questions]
    assert remote.search_batch(questions, 4, mode=mode) == one_by_one
    assert local.search_batch(questions, 4, mode=mode) == one_by_one
    mask = np.array([c.metadata.get("tenant") == "south" for c in local.chunks])
    want = local.search_batch(questions, 4, mode=mode, mask=mask)
    assert remote.search_batch(questions, 4, mode=mode, mask=mask) == want
    assert any(want) and want != one_by_one
    for q in QUESTIONS[:3]:
        assert remote.retriever(mode).search(q, 3) == local.retriever(mode).search(q, 3)


def test_killed_actor_is_restarted_and_the_batch_completes(ray_session: Any, sharded: Path) -> None:
    questions = QUESTIONS * 3
    want = Collection.open(sharded).search_batch(questions, 5, mode="hybrid")
    searcher = RayShardSearcher(sharded, 2, cpus=0.25)
    remote = ShardedCollection.open(sharded, searcher=searcher)
    try:
        before = searcher.pids()
        got = remote.search_batch(questions[:9], 5, mode="hybrid")
        os.kill(before[0], signal.SIGKILL)  # mid-run: the next batches meet a dead actor
        got += remote.search_batch(questions[9:], 5, mode="hybrid")
        assert got == want
        deadline = time.monotonic() + 60
        while searcher.pids()[0] == before[0] and time.monotonic() < deadline:
            time.sleep(0.2)
        assert searcher.pids()[0] != before[0]
    finally:
        searcher.close()


def test_cli_results_file_is_the_same_with_and_without_ray(
    ray_session: Any, sharded: Path, tmp_path: Path
) -> None:
    questions = tmp_path / "q.txt"
    questions.write_text("\n".join(QUESTIONS) + "\n", encoding="utf-8")
    base = ["search-batch", str(questions), "--index", str(sharded), "-k", "4"]
    assert main([*base, "--out", str(tmp_path / "local.jsonl")]) == 0
    assert main([*base, "--out", str(tmp_path / "ray.jsonl"), "--ray", "--actors", "1"]) == 0
    local = (tmp_path / "local.jsonl").read_bytes()
    assert local == (tmp_path / "ray.jsonl").read_bytes()
    assert local.count(b"\n") == len(QUESTIONS)


def test_ray_search_refuses_a_one_directory_index(
    ray_session: Any, corpus: Path, tmp_path: Path
) -> None:
    from docqa.build import build_index

    build_index([corpus], tmp_path / "one")
    with pytest.raises(InputError, match="--shard-rows"):
        RayShardSearcher(tmp_path / "one")


def test_shards_are_spread_by_rows() -> None:
    assert assign([5, 5, 5, 1], 2) == [[0, 2], [1, 3]]
    assert assign([3], 4) == [[0]]
    assert sorted(i for owned in assign([4, 0, 2, 2, 9], 3) for i in owned) == [0, 1, 2, 3, 4]
