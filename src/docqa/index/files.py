"""Index files written durably: a file's bytes or an array (fsynced unless the caller syncs
it with others), a manifest written atomically (:func:`write_manifest`, the one writer of every
``manifest.json``), a folder fsynced, and a finished folder moved into place.

A build writes into ``.<name>.tmp-<pid>-<random>`` beside the target (:func:`work_dir`), then
:func:`install` moves it into place: with ``renameat2(RENAME_EXCHANGE)`` on Linux an existing
index is swapped out in one step, elsewhere it is renamed aside first (a crash in that instant
leaves ``.<name>.old-*`` holding the previous index).
"""

from __future__ import annotations

import ctypes
import errno
import hashlib
import os
import shutil
from pathlib import Path
from typing import BinaryIO, Protocol

import numpy as np

from docqa.errors import IndexBusy, check_interrupted
from docqa.index import format as fmt


class HashingWriter:
    """A write-only file wrapper that hashes and counts what passes through."""

    def __init__(self, raw: BinaryIO) -> None:
        self.raw = raw
        self.sha = hashlib.sha256()
        self.size = 0

    def write(self, data: bytes | memoryview) -> int:
        self.sha.update(data)
        self.size += len(data)
        return self.raw.write(data)

    def entry(self) -> fmt.FileEntry:
        return fmt.FileEntry(self.size, self.sha.hexdigest())


def work_dir(target: Path) -> Path:
    """A new name beside ``target`` for a build in progress, ``.NAME.tmp-PID-HEX`` (the
    debris pattern of ``docqa.index.ownership``). ``os.urandom``, not ``secrets``: the same
    bytes, without importing ``random``, ``hmac`` and ``base64`` (1.3 ms of every update)."""
    return target.parent / f".{target.name}.tmp-{os.getpid()}-{os.urandom(4).hex()}"


def write_npy(path: Path, arr: np.ndarray, *, sync: bool = True) -> fmt.FileEntry:
    """Write ``arr`` as ``.npy`` at ``path`` (fsynced unless ``sync`` is False: then the
    caller syncs it, with others, before the directory is installed)."""
    with open(path, "wb") as raw:
        out = HashingWriter(raw)
        np.lib.format.write_array(out, np.ascontiguousarray(arr), allow_pickle=False)
        if sync:
            flush_and_sync(raw)
    return out.entry()


def write_bytes(path: Path, data: bytes, *, sync: bool = True) -> None:
    with open(path, "wb") as raw:
        raw.write(data)
        if sync:
            flush_and_sync(raw)


class ManifestText(Protocol):
    """A manifest (``format.Manifest``, ``shards.ShardsManifest``): its JSON text."""

    def to_json(self) -> str: ...


def write_manifest(folder: Path, manifest: ManifestText, *, sync: bool = True) -> Path:
    """Write ``manifest`` as ``folder/manifest.json`` atomically: to a temporary sibling
    (:func:`work_dir`'s name), renamed over the old one (``os.replace``), so a reader sees the
    old manifest or the new one, never a torn one. With ``sync`` the file is fsynced before the
    rename and the folder after it; without, the caller syncs both with the rest of a folder
    not yet in place. Every manifest docqa writes (a build, a streamed build, the shards' top
    manifest, a delta's, a change of ``meta``) goes through here. Returns the path."""
    path = folder / fmt.MANIFEST
    tmp = work_dir(path)
    try:
        write_bytes(tmp, manifest.to_json().encode("utf-8"), sync=sync)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    if sync:
        fsync_path(folder)
    return path


def flush_and_sync(raw: BinaryIO) -> None:
    """Flush ``raw`` and fsync its file."""
    raw.flush()
    os.fsync(raw.fileno())


def fsync_path(path: Path) -> None:
    """fsync the file or directory at ``path`` (opened read-only for it)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def install(tmp: Path, target: Path, *, sync: bool = True) -> None:
    """Move the finished ``tmp`` directory to ``target``, replacing an old index (``sync``:
    then fsync the folder that holds them, which makes the move durable). A stop asked by a
    signal whose raise was dropped (``errors.raise_interrupted``) ends the build here, before
    it lands."""
    check_interrupted()
    if target.exists():
        if not _exchange(tmp, target):
            aside = target.parent / f".{target.name}.old-{os.urandom(4).hex()}"
            os.rename(target, aside)
            os.rename(tmp, target)
            tmp = aside
        if sync:
            fsync_path(target.parent)
        shutil.rmtree(tmp, ignore_errors=True)
    else:
        _rename_into_absent(tmp, target)
        if sync:
            fsync_path(target.parent)


def _rename_into_absent(tmp: Path, target: Path) -> None:
    """Rename ``tmp`` to ``target``, absent when looked at; raises IndexBusy when a folder
    appeared there since (a writer that does not take the build lock)."""
    try:
        os.rename(tmp, target)
    except OSError as exc:
        if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST):
            raise
        raise IndexBusy(
            f"{target} was written by another process while this build ran; "
            "run this again to replace it"
        ) from None


def _exchange(a: Path, b: Path) -> bool:
    """Atomically swap two paths with Linux ``renameat2``; False when unavailable."""
    try:
        fn = ctypes.CDLL(None, use_errno=True).renameat2
    except (AttributeError, OSError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    if fn(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
        return False
    raise OSError(err, os.strerror(err), str(b))
