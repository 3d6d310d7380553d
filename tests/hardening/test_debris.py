"""Class 2, what a killed or racing build leaves: the next build removes a killed build's lock
file and work folder (its own names, nobody holding the lock, the writer gone), and only
those; two first builds of one path end in one index and a clear error, never a raw
``OSError`` or debris."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from helpers import EMBEDDER, tagged

from docqa.build import build_index
from docqa.errors import IndexBusy
from docqa.index import files as index_files
from docqa.index import open_index, write_index
from docqa.index import writer as index_writer
from docqa.index.lock import build_lock, lock_path
from docqa.shards import build as shards_build
from docqa.shards.build import build_sharded


def _debris(target: Path) -> list[str]:
    return sorted(p.name for p in target.parent.iterdir() if p.name.startswith(f".{target.name}."))


def _pages(docs: Path, n: int = 160) -> Path:
    """``n`` pages of ~60 KB of varied words: a build of them with two workers takes ~1 s."""
    docs.mkdir()
    for i in range(n):
        body = "\n\n".join(
            f"## Part {s}\n\n" + " ".join(f"w{(i * 7919 + s * 31 + k) % 4999}" for k in range(400))
            for s in range(20)
        )
        (docs / f"p{i:03d}.md").write_text(f"# Page {i}\n\n{body}\n")
    return docs


def _kill_mid_build(docs: Path, target: Path, delay: float, *args: str) -> None:
    """Start ``docqa index`` with two workers, SIGKILL it ``delay`` s after its work folder
    appears (or when it ends by itself), all within 60 s."""
    cmd = [sys.executable, "-m", "docqa", "index", str(docs), "--index", str(target)]
    proc = subprocess.Popen(
        [*cmd, "--workers", "2", "--quiet", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while proc.poll() is None and not any(".tmp-" in n for n in _debris(target)):
            assert time.monotonic() < deadline, "the build never made its work folder"
            time.sleep(0.01)
        time.sleep(delay)
    finally:
        proc.send_signal(signal.SIGKILL)
        _, err = proc.communicate(timeout=30)
    assert b"Traceback" not in err, err


def test_ten_killed_builds_leave_nothing_after_the_next_build(tmp_path: Path) -> None:
    docs, target = _pages(tmp_path / "docs"), tmp_path / "ix"
    for round_ in range(10):
        if round_ == 5:
            build_index([docs], target, workers=1)  # the later rounds kill rewrites
        delay = 0.04 * (round_ % 5)
        _kill_mid_build(docs, target, delay, *(["--rewrite"] if round_ >= 5 else []))
    # the killed build's workers ended with it: none holds the lock, the next build runs
    report = build_index([docs], target, workers=2)
    assert report.documents == 160
    assert _debris(target) == []
    open_index(target).verify()


def test_the_lock_file_goes_with_its_holder_and_exclusion_holds(tmp_path: Path) -> None:
    target = tmp_path / "ix"
    inside: list[int] = []
    most = [0]
    errors: list[BaseException] = []

    def writer() -> None:
        try:
            for _ in range(15):
                with build_lock(target, wait=20):
                    inside.append(1)
                    most[0] = max(most[0], len(inside))
                    time.sleep(0.002)
                    inside.pop()
        except BaseException as exc:  # noqa: BLE001 - surfaced by the assert below
            errors.append(exc)

    threads = [threading.Thread(target=writer) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors, errors
    assert most[0] == 1  # never two holders, though each holder deletes the file it locked
    assert not lock_path(target).exists()


def _dead_pid() -> int:
    proc = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          check=True, capture_output=True, timeout=60)  # fmt: skip
    return int(proc.stdout)


def _killed_work_folder(target: Path, extra: str | None = None) -> Path:
    """A work folder as a build killed while spilling postings leaves it (``extra``: a file
    of someone else's put in its ``scratch``)."""
    tmp = target.parent / f".{target.name}.tmp-{_dead_pid()}-abcd1234"
    (tmp / "arrays").mkdir(parents=True)
    (tmp / "scratch").mkdir()
    for name in ("chunks.blob", "chunks.offsets.npy", "arrays/bm25_lengths.npy"):
        (tmp / name).write_bytes(b"x")
    for k in "hrt":
        (tmp / "scratch" / f"run-00000.{k}").write_bytes(b"x")
    if extra:
        (tmp / "scratch" / extra).write_text("mine")
    return tmp


def test_a_killed_builds_work_folder_with_spilled_postings_is_removed(tmp_path: Path) -> None:
    target = tmp_path / "ix"
    _killed_work_folder(target)
    lock_path(target).write_text("999999999\n")  # a killed holder's lock file
    write_index(target, *tagged(1), embedder=EMBEDDER)
    assert _debris(target) == []


def test_an_update_with_nothing_to_do_still_removes_debris(tmp_path: Path) -> None:
    docs, target = tmp_path / "docs", tmp_path / "ix"
    docs.mkdir()
    (docs / "a.md").write_text("# Parking\n\nThe car park closes at 9 p.m.\n")
    build_index([docs], target)
    _killed_work_folder(target)
    assert build_index([docs], target).embedded == 0  # nothing changed: no index written
    assert _debris(target) == []


def test_a_work_folder_holding_a_foreign_file_is_kept(tmp_path: Path) -> None:
    target = tmp_path / "ix"
    tmp = _killed_work_folder(target, extra="notes.txt")
    write_index(target, *tagged(1), embedder=EMBEDDER)
    assert (tmp / "scratch" / "notes.txt").read_text() == "mine"


def _race_at_install(monkeypatch: pytest.MonkeyPatch, module: object, write: object) -> list:
    """Run ``write()`` twice, the second starting while the first is at its install (the
    moment two first builds used to meet); returns what each ended with."""
    real = module.install  # type: ignore[attr-defined]
    at_install, second_done = threading.Event(), threading.Event()

    def install(*args: object, **kwargs: object) -> None:
        if threading.current_thread().name == "first":
            at_install.set()
            second_done.wait(30)
        real(*args, **kwargs)

    monkeypatch.setattr(module, "install", install)
    outcomes: list = [None, None]

    def run(i: int) -> None:
        try:
            outcomes[i] = write()  # type: ignore[operator]
        except BaseException as exc:  # noqa: BLE001 - compared below
            outcomes[i] = exc
        finally:
            if i == 1:
                second_done.set()

    first = threading.Thread(target=run, args=(0,), name="first")
    first.start()
    assert at_install.wait(30)
    run(1)
    first.join(60)
    return outcomes


def test_two_first_writes_of_one_path_one_wins(tmp_path, monkeypatch) -> None:
    target = tmp_path / "ix"
    chunks, vectors = tagged(1)
    won, lost = _race_at_install(
        monkeypatch, index_writer,
        lambda: write_index(target, chunks, vectors, embedder=EMBEDDER),
    )  # fmt: skip
    assert won == target
    assert isinstance(lost, IndexBusy) and "is writing" in str(lost)
    assert _debris(target) == []
    assert len(open_index(target)) == 6


def test_two_first_sharded_builds_of_one_path_one_wins(tmp_path, monkeypatch) -> None:
    docs, target = tmp_path / "docs", tmp_path / "ix"
    docs.mkdir()
    for i in range(4):
        (docs / f"d{i}.md").write_text(f"# Doc {i}\n\nnotes number {i}\n")
    won, lost = _race_at_install(
        monkeypatch, shards_build, lambda: build_sharded([docs], target, shard_rows=2)
    )
    assert won.documents == 4
    assert isinstance(lost, IndexBusy) and "is writing" in str(lost)
    assert _debris(target) == []


def test_a_folder_made_at_the_target_by_another_writer_is_a_clear_error(tmp_path) -> None:
    target = tmp_path / "ix"
    tmp = tmp_path / ".ix.tmp-1-00000000"
    tmp.mkdir()
    target.mkdir()
    (target / "x").write_text("someone else's")
    with pytest.raises(IndexBusy, match="written by another process while this build ran"):
        index_files._rename_into_absent(tmp, target)
    assert os.listdir(target) == ["x"]
