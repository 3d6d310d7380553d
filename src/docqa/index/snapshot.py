"""One build of an index, read whole: every file reached through one directory descriptor.

A rebuild swaps a new directory in at the index path (``renameat2(RENAME_EXCHANGE)``) and then
deletes the old one. A reader that looked files up by path could take ``vectors.npy`` from one
build and ``chunks.blob`` from the next. :func:`read_snapshot` instead opens the directory once
(``O_DIRECTORY``) and opens every member relative to that descriptor (``dir_fd``, no symlinks
followed), memory-mapping each file whole; the maps stay valid after the old build is deleted.
If a member vanishes mid-open (the old build being deleted) and the path now names another
directory, the open starts again on the new build, a bounded number of times.

Every listed file is mapped at open, so :meth:`Snapshot.member` and checksums later read the
same bytes the structural checks saw, never a path that may since have changed.
"""

from __future__ import annotations

import hashlib
import io
import mmap
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import numpy as np

from docqa.errors import IndexCorrupt, IndexStoreError
from docqa.index import format as fmt

MAX_MANIFEST_BYTES = 256 << 20
"""A manifest larger than this is refused as damaged (it lists files and per-file rows)."""
_ATTEMPTS = 5
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
T = TypeVar("T")


@dataclass(frozen=True)
class Snapshot:
    """The manifest of one build and every file it lists, mapped read-only (uint8)."""

    root: Path
    manifest: fmt.Manifest
    raw: dict[str, np.ndarray]

    def member(self, rel: str) -> np.ndarray:
        """The mapped bytes of the listed file ``rel``."""
        return self.raw[rel]


def read_snapshot(root: Path) -> Snapshot:
    """Open the index directory at ``root`` and map one build of it whole."""
    return opened(root, lambda dfd: read_build(root, dfd))


def opened(root: Path, read: Callable[[int], T]) -> T:
    """``read(dfd)`` of the directory at ``root``, opened once (``dfd``: its descriptor, for
    every member to be opened relative to it); again on the new build when a rebuild swapped
    the directory while it was read and the read failed (at most ``_ATTEMPTS`` times)."""
    for attempt in range(_ATTEMPTS):
        dfd, ident = _open_dir(root)
        try:
            return read(dfd)
        except IndexStoreError:
            if attempt == _ATTEMPTS - 1 or _identity(root) in (ident, None):
                raise
        finally:
            os.close(dfd)
    raise AssertionError("unreachable")  # pragma: no cover


def read_manifest_text(root: Path, dfd: int) -> str:
    """The text of the manifest of the directory ``dfd`` (``root`` names it in errors)."""
    data = _read_member(root, dfd, fmt.MANIFEST, MAX_MANIFEST_BYTES)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise IndexCorrupt(
            f"{root / fmt.MANIFEST} is not UTF-8 text ({exc}); {fmt.REPLACE}"
        ) from exc


def read_snapshot_in(root: Path, parent: int, name: str) -> tuple[Snapshot, str]:
    """The build in the folder ``name`` of the open directory ``parent`` (``root``: that
    folder's path, for messages), with the sha256 of its manifest's bytes (what a sharded
    index's top manifest records of each shard). ``name`` is one path component."""
    if not name or name in (".", "..") or "/" in name:
        raise IndexCorrupt(f"{root} is not a shard folder name; {fmt.REBUILD}")
    try:
        dfd = os.open(name, os.O_RDONLY | _DIRECTORY | _NOFOLLOW, dir_fd=parent)
    except FileNotFoundError:
        raise IndexCorrupt(f"{root} is missing; {fmt.REBUILD}") from None
    except OSError as exc:
        raise IndexCorrupt(f"{root} cannot be opened as a folder ({exc.strerror}); {fmt.REBUILD}")
    try:
        text = read_manifest_text(root, dfd)
        return read_build(root, dfd, text), hashlib.sha256(text.encode("utf-8")).hexdigest()
    finally:
        os.close(dfd)


def map_member(root: Path, dfd: int, rel: str, size: int) -> np.ndarray:
    """The listed file ``rel`` of the directory ``dfd``, mapped (uint8), checked to hold the
    ``size`` bytes its manifest records."""
    raw = _map_member(root, dfd, rel)
    if raw.size != size:
        raise IndexCorrupt(
            f"{root / rel} is {raw.size} bytes but the manifest records {size}; "
            f"the file is truncated or was modified, {fmt.REBUILD}"
        )
    return raw


def _open_dir(root: Path) -> tuple[int, tuple[int, int]]:
    try:
        dfd = os.open(root, os.O_RDONLY | _DIRECTORY)
    except (FileNotFoundError, NotADirectoryError):
        raise fmt.no_index(root) from None
    except OSError as exc:
        raise IndexStoreError(f"cannot open the index at {root} ({exc.strerror})") from exc
    st = os.fstat(dfd)
    return dfd, (st.st_dev, st.st_ino)


def _identity(root: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(root)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def read_build(root: Path, dfd: int, text: str | None = None) -> Snapshot:
    """The build of the directory ``dfd`` (its manifest's ``text`` when already read)."""
    if text is None:
        text = read_manifest_text(root, dfd)
    manifest = fmt.Manifest.from_json(text, str(root / fmt.MANIFEST))
    raw = {rel: map_member(root, dfd, rel, entry.size) for rel, entry in manifest.files.items()}
    return Snapshot(root, manifest, raw)


def _advice(rel: str) -> str:
    """What to do when ``rel`` is missing or unreadable: without its manifest a folder is not
    provably an index, and ``docqa index`` will not replace it until it is removed."""
    return fmt.REPLACE if rel == fmt.MANIFEST else fmt.REBUILD


def _open_member(root: Path, dfd: int, rel: str) -> int:
    """A descriptor of the regular file ``rel`` under ``dfd`` (no symlink followed)."""
    folder, _, name = rel.rpartition("/")
    parent = dfd
    try:
        if folder:
            parent = os.open(folder, os.O_RDONLY | _DIRECTORY | _NOFOLLOW, dir_fd=dfd)
        fd = os.open(name, os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0), dir_fd=parent)
    except FileNotFoundError:
        raise IndexCorrupt(f"{root / rel} is missing; {_advice(rel)}") from None
    except OSError as exc:
        raise IndexCorrupt(
            f"{root / rel} cannot be opened as a file ({exc.strerror}); {_advice(rel)}"
        ) from exc
    finally:
        if parent != dfd:
            os.close(parent)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise IndexCorrupt(f"{root / rel} is not a regular file; {fmt.REBUILD}")
    return fd


def _read_member(root: Path, dfd: int, rel: str, limit: int) -> bytes:
    fd = _open_member(root, dfd, rel)
    try:
        if os.fstat(fd).st_size > limit:
            raise IndexCorrupt(f"{root / rel} is larger than {limit >> 20} MiB; {fmt.REBUILD}")
        with os.fdopen(os.dup(fd), "rb") as f:
            return f.read(limit + 1)
    finally:
        os.close(fd)


def _map_member(root: Path, dfd: int, rel: str) -> np.ndarray:
    fd = _open_member(root, dfd, rel)
    try:
        size = os.fstat(fd).st_size
        if size == 0:
            return np.zeros(0, dtype=np.uint8)
        return np.frombuffer(mmap.mmap(fd, size, access=mmap.ACCESS_READ), dtype=np.uint8)
    finally:
        os.close(fd)


def npy_view(raw: np.ndarray, where: Path) -> np.ndarray:
    """The array stored in the mapped ``.npy`` bytes ``raw`` (a read-only view, no copy).

    Raises IndexCorrupt for a header that does not parse, a Fortran-order or object array, or
    a data part whose length does not match the header.
    """
    head = io.BytesIO(bytes(raw[: min(raw.size, 1 << 16)]))
    try:
        version = np.lib.format.read_magic(head)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(head)
        elif version == (2, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(head)
        else:
            raise ValueError(f"unsupported .npy version {version}")
    except Exception as exc:  # numpy's header parser raises assorted types on junk bytes
        raise IndexCorrupt(f"{where} has a damaged .npy header ({exc}); {fmt.REBUILD}") from exc
    offset = head.tell()
    if fortran or dtype.hasobject:
        raise IndexCorrupt(f"{where} is not a C-order numeric array; {fmt.REBUILD}")
    want = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    if raw.size - offset != want:
        raise IndexCorrupt(
            f"{where} holds {raw.size - offset} data bytes, its header says {want}; {fmt.REBUILD}"
        )
    return np.ndarray(shape, dtype=dtype, buffer=raw.data, offset=offset)
