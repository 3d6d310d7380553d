"""One writer at a time per index: an exclusive ``flock`` on ``.<name>.lock`` beside it.

Every way of writing an index at a path (``build_index``, ``write_index``, a sharded build)
holds the lock from before it looks at the target until the new index is installed and its
work folder gone, so two writers never meet at the rename (the loser of a race gets
``IndexBusy``, or waits with ``wait=``).

The holder deletes the lock file while it still holds the lock, then closes it. A process
that opened the file before the delete and gets the lock after it holds a file no longer at
the path: it sees that (the path names another inode, or none) and opens the path again, so
two holders never hold two different files at once. A holder killed with SIGKILL leaves the
file; the next writer locks it (the kernel dropped the lock with the process) and deletes it
in turn.

A process forked while the lock is held (a build's workers) closes its copy at once
(``os.register_at_fork``): a ``flock`` belongs to the open file, so a worker orphaned by a
killed build would otherwise hold the lock for as long as it lives. Readers never take the
lock: they see one build whole (:mod:`docqa.index.snapshot`).
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
_HELD: dict[int, Path] = {}  # descriptor of a lock held by this process -> its target
_FORK_HOOK: list[bool] = []


def lock_path(target: Path) -> Path:
    """The lock file of the index at ``target``."""
    return target.parent / f".{target.name}.lock"


@contextmanager
def build_lock(target: Path, *, wait: float = 0.0) -> Iterator[None]:
    """Hold the build lock of ``target`` for the ``with`` block.

    Waits up to ``wait`` seconds for another holder (another process, or another ``with``
    in this one); then raises IndexBusy naming it.
    """
    _drop_in_forked_children()
    path = lock_path(target)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = _acquire(path, target, time.monotonic() + max(wait, 0.0))
    try:
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        _HELD[fd] = target
        yield
    finally:
        _HELD.pop(fd, None)
        _unlink_quietly(path)  # still locked: see the module doc
        os.close(fd)  # closing drops the lock


def _acquire(path: Path, target: Path, deadline: float) -> int:
    """A descriptor of the file at ``path``, locked, that is still the file at ``path``."""
    flags = os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0)
    while True:
        fd = os.open(path, flags, 0o644)
        try:
            _lock(fd, target, deadline)
        except BaseException:
            os.close(fd)
            raise
        if _still_at(fd, path):
            return fd
        os.close(fd)  # the holder before us deleted it: lock the file now at the path


def _lock(fd: int, target: Path, deadline: float) -> None:
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


def _still_at(fd: int, path: Path) -> bool:
    try:
        now = os.stat(path, follow_symlinks=False)
    except FileNotFoundError:
        return False
    held = os.fstat(fd)
    return (now.st_dev, now.st_ino) == (held.st_dev, held.st_ino)


def _unlink_quietly(path: Path) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def _drop_in_forked_children() -> None:
    """Register, once, the hook that closes a forked child's copies of held locks."""
    if not _FORK_HOOK:
        _FORK_HOOK.append(True)
        os.register_at_fork(after_in_child=_close_inherited)


def _close_inherited() -> None:
    for fd in list(_HELD):
        try:
            os.close(fd)
        except OSError:
            pass
    _HELD.clear()
