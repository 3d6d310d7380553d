"""A build killed with SIGKILL halfway leaves the previous index intact and the next build clean."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from index_helpers import EMBEDDER, sample

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
