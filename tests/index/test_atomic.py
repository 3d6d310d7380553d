"""A build killed with SIGKILL halfway leaves the previous index intact and the next build
clean; one stopped (Ctrl-C, SIGTERM to docqa watch) at the moment it makes its work folder, or
while it copies rows, or whose stop was dropped where CPython drops what a handler raises,
leaves the previous index and nothing else."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from index_helpers import EMBEDDER, sample

from docqa.build import build_index
from docqa.errors import Interrupted, clear_interrupted
from docqa.index import open_index, write_index

BUILD = """
import sys, time
from pathlib import Path
import numpy as np
sys.path.insert(0, {helpers!r})
from index_helpers import EMBEDDER, chunk
from docqa.index import write_index

class SlowChunks:
    # Signals after half the chunks have been written, then stalls until killed.
    def __len__(self):
        return 200
    def __iter__(self):
        for i in range(200):
            if i == 100:
                Path({flag!r}).write_text("half")
                time.sleep(60)
            yield chunk(i, "replacement")

write_index({target!r}, SlowChunks(), np.ones((200, 8), np.float32), embedder=EMBEDDER)
"""


def _kill_build_halfway(target: Path, flag: Path) -> None:
    code = BUILD.format(helpers=str(Path(__file__).parent), flag=str(flag), target=str(target))
    proc = subprocess.Popen([sys.executable, "-c", code])
    try:
        deadline = time.monotonic() + 30
        while not flag.exists():
            assert proc.poll() is None, "the build process ended before reaching the halfway point"
            assert time.monotonic() < deadline, "the build never reached the halfway point"
            time.sleep(0.02)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert proc.returncode == -signal.SIGKILL


def test_sigkill_halfway_keeps_previous_index(tmp_path: Path) -> None:
    target = tmp_path / "idx"
    chunks, vectors = sample(30)
    write_index(target, chunks, vectors, embedder=EMBEDDER)
    _kill_build_halfway(target, tmp_path / "half")

    debris = [p.name for p in tmp_path.iterdir() if p.name.startswith(".idx.tmp-")]
    assert len(debris) == 1, "the killed build should have left its temporary directory"
    ix = open_index(target)
    ix.verify()
    assert list(ix.chunks) == chunks
    np.testing.assert_array_equal(ix.vectors, vectors)

    new_chunks, new_vectors = sample(12, seed=5)
    write_index(target, new_chunks, new_vectors, embedder=EMBEDDER)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["half", "idx"]
    ix = open_index(target)
    ix.verify()
    assert list(ix.chunks) == new_chunks


def test_sigkill_of_first_build_leaves_nothing_openable_and_next_build_works(
    tmp_path: Path,
) -> None:
    target = tmp_path / "idx"
    _kill_build_halfway(target, tmp_path / "half")
    assert not target.exists()
    chunks, vectors = sample(3)
    write_index(target, chunks, vectors, embedder=EMBEDDER)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["half", "idx"]
    open_index(target).verify()


def test_live_builders_temporary_directory_is_left_alone(tmp_path: Path) -> None:
    live = tmp_path / f".idx.tmp-{os.getpid()}-abcd1234"
    live.mkdir()
    chunks, vectors = sample(3)
    write_index(tmp_path / "idx", chunks, vectors, embedder=EMBEDDER)
    assert live.is_dir()


def _stop_as_the_work_folder_is_made(monkeypatch: pytest.MonkeyPatch, at: int) -> list[Path]:
    """Make the ``at``-th ``mkdir`` of a build's work folder (``.NAME.tmp-*``) raise
    ``KeyboardInterrupt`` as it returns, as Ctrl-C or ``docqa watch``'s SIGTERM can: the folder
    is made and the code after the call never runs. Returns the folders so made."""
    made: list[Path] = []
    real = Path.mkdir

    def mkdir(self: Path, *args: Any, **kwargs: Any) -> None:
        real(self, *args, **kwargs)
        if ".tmp-" in self.name:
            made.append(self)
            if len(made) == at:
                raise KeyboardInterrupt

    monkeypatch.setattr(Path, "mkdir", mkdir)
    return made


def _twenty_pages(tmp_path: Path) -> tuple[Path, Path]:
    """A folder of 20 pages and its index: ``(docs, ix)``."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(20):
        (docs / f"page-{i}.md").write_text(f"# Page {i}\n\nText of page {i}.\n")
    build_index([docs], tmp_path / "ix", workers=1)
    return docs, tmp_path / "ix"


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if ".tmp-" in p.name)


def test_a_stop_as_write_index_makes_its_folder_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    chunks, vectors = sample(4)
    made = _stop_as_the_work_folder_is_made(monkeypatch, 1)
    with pytest.raises(KeyboardInterrupt):
        write_index(tmp_path / "ix", chunks, vectors, embedder=EMBEDDER)
    assert len(made) == 1 and _leftovers(tmp_path) == []
    assert not (tmp_path / "ix").exists()


@pytest.mark.parametrize(
    ("rewrite", "at"), [(True, 1), (False, 1), (False, 2)], ids=["whole", "delta", "delta-part"]
)
def test_a_stop_as_a_build_makes_its_folder_leaves_the_previous_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rewrite: bool, at: int
) -> None:
    docs, ix = _twenty_pages(tmp_path)
    manifest = (ix / "manifest.json").read_bytes()
    (docs / "page-3.md").write_text("# Page 3\n\nNew text.\n")  # a delta: 1 file of 20
    # a whole build (--rewrite) makes one work folder; a delta its own, then its part's in it
    made = _stop_as_the_work_folder_is_made(monkeypatch, at)
    with pytest.raises(KeyboardInterrupt):
        build_index([docs], ix, workers=1, rewrite=rewrite)
    assert len(made) == at
    assert (ix / "manifest.json").read_bytes() == manifest
    assert _leftovers(tmp_path) == []
    monkeypatch.undo()
    assert build_index([docs], ix, workers=1).documents == 20


def test_a_stop_while_rows_are_copied_is_a_stop_not_a_crash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A rewrite copies the unchanged files' rows from the previous index's maps; stopped in
    # the middle, the copy's views of a map are held by the traceback's frames, so the map
    # cannot be closed yet: that must not turn the stop into a BufferError.
    from docqa.index.builder import IndexBuilder

    docs, ix = _twenty_pages(tmp_path)
    manifest = (ix / "manifest.json").read_bytes()
    copied: list[int] = []

    def copy_vectors(self: IndexBuilder, rows: np.ndarray) -> None:
        copied.append(len(rows))
        raise KeyboardInterrupt

    monkeypatch.setattr(IndexBuilder, "copy_vectors", copy_vectors)
    with pytest.raises(KeyboardInterrupt):
        build_index([docs], ix, workers=1, rewrite=True)
    assert copied  # the stop came in the copy
    assert (ix / "manifest.json").read_bytes() == manifest
    assert _leftovers(tmp_path) == []
    monkeypatch.undo()
    assert build_index([docs], ix, workers=1, rewrite=True).documents == 20


@pytest.mark.parametrize("rewrite", [True, False], ids=["whole", "delta"])
def test_a_stop_whose_raise_was_dropped_keeps_the_build_from_landing(
    tmp_path: Path, drop_a_stop: Callable[[], None], rewrite: bool
) -> None:
    # SIGTERM's handler may run inside a weakref callback (an import's module lock has one),
    # where its Interrupted is printed and dropped: the build goes on, and must not land.
    docs, ix = _twenty_pages(tmp_path)
    manifest = (ix / "manifest.json").read_bytes()
    (docs / "page-3.md").write_text("# Page 3\n\nNew text.\n")
    drop_a_stop()
    with pytest.raises(Interrupted):
        build_index([docs], ix, workers=1, rewrite=rewrite)
    assert (ix / "manifest.json").read_bytes() == manifest
    assert _leftovers(tmp_path) == []
    clear_interrupted()  # the stop handled, as the command that asked for it does
    assert build_index([docs], ix, workers=1).embedded == 1
