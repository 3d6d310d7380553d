"""Class 4, reads racing a rebuild, and two builds of one index."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from helpers import EMBEDDER, assert_one_line_error, tagged

from docqa.build import build_index
from docqa.errors import IndexBusy
from docqa.index import open_index, snapshot, write_index
from docqa.index.lock import build_lock
from docqa.index.reader import Index


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
