"""One build at a time per index: an exclusive ``flock`` on ``.<name>.lock`` beside it.

The lock file is never deleted (deleting a lock file lets a third process lock a fresh file
while the second still holds the old one); the kernel drops the lock when its holder exits,
however it exits. Readers never take it: they see one build whole (:mod:`docqa.index.snapshot`).
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from docqa.errors import IndexBusy

_POLL = 0.05


def lock_path(target: Path) -> Path:
    """The lock file of the index at ``target``."""
    return target.parent / f".{target.name}.lock"


@contextmanager
def build_lock(target: Path, *, wait: float = 0.0) -> Iterator[None]:
    """Hold the build lock of ``target`` for the ``with`` block.

    Waits up to ``wait`` seconds for another holder; then raises IndexBusy naming it.
    """
    path = lock_path(target)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
    try:
        _acquire(fd, target, time.monotonic() + max(wait, 0.0))
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        yield
    finally:
        os.close(fd)  # closing drops the lock


def _acquire(fd: int, target: Path, deadline: float) -> None:
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                break
            time.sleep(_POLL)
    holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "another process"
    raise IndexBusy(
        f"another docqa index (pid {holder}) is writing {target}; wait for it to finish "
        "and run this again"
    )
