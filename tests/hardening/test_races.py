"""Class 4, reads racing a rebuild, and two builds of one index."""

from __future__ import annotations

import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from helpers import EMBEDDER, assert_one_line_error, tagged

from docqa.build import build_index
from docqa.collection import Collection
from docqa.errors import IndexBusy
from docqa.index import open_index, snapshot, write_index
from docqa.index.lock import build_lock
from docqa.index.reader import Index
from docqa.index.shards import ShardedIndex, is_sharded, open_any


def assert_whole(index: Index) -> int:
    """Every row's vector and text come from the same build; returns that build's tag."""
    tags = {int(v) for v in index.vectors[:, 0]}
    assert len(tags) == 1, tags
    tag = tags.pop()
    for row, chunk in enumerate(index.chunks):
        assert chunk.text == f"build {tag} row {row}"
        assert index.vectors[row, 1] == row
    return tag


def test_a_swap_between_two_file_opens_still_gives_one_build(tmp_path, monkeypatch) -> None:
    target = write_index(tmp_path / "ix", *tagged(1), embedder=EMBEDDER)
    real_map = snapshot._map_member
    swapped: list[bool] = []

    def map_then_swap(root: Path, dfd: int, rel: str) -> np.ndarray:
        out = real_map(root, dfd, rel)
        if not swapped:  # the first file of build 1 is mapped: now a rebuild swaps in build 2
            swapped.append(True)
            write_index(target, *tagged(2), embedder=EMBEDDER)
        return out

    monkeypatch.setattr(snapshot, "_map_member", map_then_swap)
    assert assert_whole(open_index(target)) in (1, 2)


def test_readers_under_repeated_rebuilds_see_whole_builds(tmp_path: Path) -> None:
    target = write_index(tmp_path / "ix", *tagged(0), embedder=EMBEDDER)
    stop = threading.Event()
    errors: list[BaseException] = []

    def rebuild() -> None:
        tag = 1
        try:
            while not stop.is_set() and tag < 400:
                write_index(target, *tagged(tag, n=6 + tag % 5), embedder=EMBEDDER)
                tag += 1
        except Exception as exc:  # noqa: BLE001 - surfaced by the assert below
            errors.append(exc)

    writer = threading.Thread(target=rebuild)
    writer.start()
    seen: set[int] = set()
    try:
        ends = time.monotonic() + 4.0
        for _ in range(2000):
            if time.monotonic() > ends:
                break
            seen.add(assert_whole(open_index(target)))
    finally:
        stop.set()
        writer.join(30)
    assert not errors, errors
    assert len(seen) > 1  # the reads really did overlap the rebuilds


def test_a_second_build_of_one_index_says_so(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# Parking\n\nThe car park closes at 9 p.m.\n")
    target = tmp_path / "ix"
    with build_lock(target):
        with pytest.raises(IndexBusy, match=r"another docqa index \(pid \d+\) is writing"):
            build_index([tmp_path / "docs"], target)
        code = (
            "import sys; from docqa.cli.main import main; "
            f"sys.exit(main(['index', 'docs', '--index', {str(target)!r}]))"
        )
        proc = subprocess.run(
            [sys.executable, "-c", code],
            check=False,
            cwd=tmp_path,
            capture_output=True,
            timeout=120,
        )
        assert "is writing" in assert_one_line_error(proc)
    assert not target.exists()
    build_index([tmp_path / "docs"], target)  # the lock is released with its holder
    assert len(open_index(target)) == 1


def test_the_lock_waits_when_asked(tmp_path: Path) -> None:
    target = tmp_path / "ix"
    held = threading.Event()
    release = threading.Event()

    def holder() -> None:
        with build_lock(target):
            held.set()
            release.wait(10)

    thread = threading.Thread(target=holder)
    thread.start()
    try:
        assert held.wait(10)
        threading.Timer(0.2, release.set).start()
        started = time.monotonic()
        with build_lock(target, wait=10):
            assert time.monotonic() - started >= 0.15
    finally:
        release.set()
        thread.join(10)


# A delta-updated index is a folder of folders: its top manifest, the base and delta indexes
# under it, and the row maps. An update swaps the whole folder; a reader must still get one
# build (every part reached through one descriptor of the folder), never an error.
FILES = 16  # one file edited per update: 1/16 of the bytes, so each update is a delta


def _write_docs(docs: Path, versions: list[int]) -> None:
    for i, v in enumerate(versions):
        (docs / f"f{i:02d}.md").write_text(f"# Doc {i}\n\nfile {i} version {v} of the notes.\n")


def _versions_seen(index: Index | ShardedIndex) -> list[int]:
    """Each file's version as the index holds it; the check that every chunk is whole."""
    seen = [-1] * FILES
    for chunk in index.chunks:
        m = re.search(r"file (\d+) version (\d+) of the notes", chunk.text)
        assert m is not None, chunk.text
        assert seen[int(m[1])] == -1, "a file's rows twice"
        seen[int(m[1])] = int(m[2])
    return seen


def _delta_indexed(tmp_path: Path) -> tuple[Path, Path, list[int]]:
    docs, target = tmp_path / "docs", tmp_path / "ix"
    docs.mkdir()
    versions = [0] * FILES
    _write_docs(docs, versions)
    build_index([docs], target)
    versions[0] = 1
    _write_docs(docs, versions)
    assert build_index([docs], target).delta is not None
    assert is_sharded(target)
    return docs, target, versions


def test_a_swap_while_a_delta_index_opens_still_gives_one_build(tmp_path, monkeypatch) -> None:
    docs, target, versions = _delta_indexed(tmp_path)
    before = list(versions)
    versions[1] = 1
    real = snapshot.read_snapshot_in
    calls: list[str] = []

    def swap_after_the_first_part(
        root: Path, parent: int, name: str
    ) -> tuple[snapshot.Snapshot, str]:
        calls.append(name)
        out = real(root, parent, name)
        if len(calls) == 1:  # the base is mapped: now an update swaps in the next build
            _write_docs(docs, versions)
            assert build_index([docs], target).delta is not None
        return out

    monkeypatch.setattr(snapshot, "read_snapshot_in", swap_after_the_first_part)
    index = open_any(target)
    assert isinstance(index, ShardedIndex)
    assert _versions_seen(index) in (before, versions)
    assert len(calls) > 2  # the first attempt met the swap and opened the new build again


def test_readers_under_repeated_delta_updates_see_whole_builds(tmp_path: Path) -> None:
    docs, target, versions = _delta_indexed(tmp_path)
    states = [list(versions)]  # every build the writer installed, in order
    stop = threading.Event()
    errors: list[BaseException] = []

    def update() -> None:
        try:
            for step in range(60):
                if stop.is_set():
                    break
                versions[(step + 1) % FILES] += 1
                _write_docs(docs, versions)
                states.append(list(versions))  # before the swap: a reader may see it next
                build_index([docs], target)
        except Exception as exc:  # noqa: BLE001 - surfaced by the assert below
            errors.append(exc)

    writer = threading.Thread(target=update)
    writer.start()
    seen = []
    try:
        ends = time.monotonic() + 6.0
        for _ in range(3000):
            if time.monotonic() > ends or not writer.is_alive():
                break
            collection = Collection.open(target)
            seen.append(_versions_seen(collection.index))
    finally:
        stop.set()
        writer.join(60)
    assert not errors, errors
    assert all(v in states for v in seen)
    assert len({tuple(v) for v in seen}) > 1  # the reads really did overlap the updates
