"""Sharded indexes on disk: built from folders, opened by ``Collection.open``, searched exactly
as the one-directory index of the same files; builds independent of grouping; bad input."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from shard_helpers import QUESTIONS, same_rows, tree_bytes

from docqa.build import IndexSettings, build_index
from docqa.collection import Collection
from docqa.errors import IndexCorrupt, InputError
from docqa.index.shards import is_sharded, open_sharded
from docqa.shards.build import build_sharded, run_here
from docqa.shards.collection import ShardedCollection

MODES = ("dense", "keyword", "hybrid")


@pytest.fixture(scope="module")
def built(corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("built")
    build_index([corpus], out / "single")
    for rows in (1, 4, 9, 10_000):
        build_sharded([corpus], out / f"rows-{rows}", shard_rows=rows)
    return {p.name: p for p in out.iterdir()}


@pytest.mark.parametrize("name", ["rows-1", "rows-4", "rows-10000"])
def test_sharded_build_holds_the_single_build_rows(built: dict[str, Path], name: str) -> None:
    same_rows(built["single"], built[name])
    shards = open_sharded(built[name]).shards
    rows = int(name.split("-")[1])
    assert all(len(s) <= rows for s in shards)
    assert sum(len(s) for s in shards) == len(open_sharded(built[name]))
    open_sharded(built[name]).verify()


@pytest.mark.parametrize("name", ["rows-9", "rows-10000"])
@pytest.mark.parametrize("mode", MODES)
def test_every_search_equals_the_single_index(built: dict[str, Path], name: str, mode: str) -> None:
    one, many = Collection.open(built["single"]), Collection.open(built[name])
    assert isinstance(many, ShardedCollection)
    south = np.array([c.metadata.get("tenant") == "south" for c in one.chunks])
    assert 0 < south.sum() < south.size
    for k in (1, 3, len(one.chunks) + 5):  # the last is more than the rows
        for guarded in (True, False):
            r1 = one.retriever(mode, guard=guarded)
            r2 = many.retriever(mode, guard=guarded)
            for q in QUESTIONS[::2]:
                assert r2.search(q, k) == r1.search(q, k), (q, k, guarded)
                assert r2.search(q, k, mask=south) == r1.search(q, k, mask=south)
                ids = np.flatnonzero(~south)
                assert r2.search(q, k, mask=ids) == r1.search(q, k, mask=ids)


@pytest.mark.parametrize("mode", MODES)
def test_batch_search_equals_one_by_one(built: dict[str, Path], mode: str) -> None:
    questions = QUESTIONS * 2  # 18 >= the batch kernels' threshold
    one = Collection.open(built["single"])
    want = [one.retriever(mode, guard=False).search(q, 4) for q in questions]
    assert one.search_batch(questions, 4, mode=mode) == want
    for name in ("rows-1", "rows-9"):
        assert Collection.open(built[name]).search_batch(questions, 4, mode=mode) == want
    assert any(hits for hits in want)


def test_grouping_never_changes_the_bytes(corpus: Path, tmp_path: Path) -> None:
    for groups in (1, 3, 50):
        build_sharded([corpus], tmp_path / f"g{groups}", shard_rows=5, groups=groups)
    one = tree_bytes(tmp_path / "g1")
    assert one == tree_bytes(tmp_path / "g3") == tree_bytes(tmp_path / "g50")
    assert not list((tmp_path / "g1").glob(".work*"))


def test_failed_build_leaves_the_previous_index(corpus: Path, tmp_path: Path) -> None:
    target = tmp_path / "ix"
    build_sharded([corpus], target, shard_rows=4)
    before = tree_bytes(target)

    def broken(fn, items):  # type: ignore[no-untyped-def]
        if fn.__name__ == "cut_shard":
            raise RuntimeError("worker lost")
        return run_here(fn, items)

    with pytest.raises(RuntimeError, match="worker lost"):
        build_sharded([corpus], target, shard_rows=2, runner=broken)
    assert tree_bytes(target) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ix"]


def test_replacing_either_kind_with_the_other(corpus: Path, tmp_path: Path) -> None:
    target = tmp_path / "ix"
    build_index([corpus], target)
    build_sharded([corpus], target, shard_rows=3)
    assert is_sharded(target)
    build_index([corpus], target)
    assert not is_sharded(target)
    assert isinstance(Collection.open(target), Collection)


def test_sharding_refuses_fitted_embedders_and_bad_sizes(corpus: Path, tmp_path: Path) -> None:
    with pytest.raises(InputError, match="hashing embedder"):
        build_sharded([corpus], tmp_path / "ix", IndexSettings(embedder="tfidf"))
    with pytest.raises(InputError, match="shard_rows"):
        build_sharded([corpus], tmp_path / "ix", shard_rows=0)
    with pytest.raises(InputError, match="does not exist"):
        build_sharded([tmp_path / "missing"], tmp_path / "ix")
    assert not (tmp_path / "ix").exists()


def test_damaged_sharded_index_is_reported(built: dict[str, Path], tmp_path: Path) -> None:
    ix = tmp_path / "ix"
    shutil.copytree(built["rows-4"], ix)
    manifest = json.loads((ix / "manifest.json").read_text())
    manifest["shards"][1]["manifest_sha256"] = "0" * 64
    (ix / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(IndexCorrupt, match="shard-00001"):
        Collection.open(ix)
    shutil.rmtree(ix)
    shutil.copytree(built["rows-4"], ix)
    (ix / "global" / "bm25_global_df.npy").unlink()
    with pytest.raises(IndexCorrupt, match="bm25_global_df"):
        Collection.open(ix)
    shutil.rmtree(ix)
    shutil.copytree(built["rows-4"], ix)
    with open(ix / "shard-00000" / "vectors.npy", "r+b") as f:
        f.seek(-1, 2)
        f.write(b"\x01")
    with pytest.raises(IndexCorrupt, match="checksum"):
        open_sharded(ix).verify()
