"""File checksums of an index: xxh3-128 since format 2, sha256 in format 1 (still read).

A format-2 digest of a file is ``xxh3_128(file[:head] + xxh3_128(file[head:]).digest())``:
the bytes after ``head`` are hashed as they are written, and the first ``head`` bytes (an
appended ``.npy`` file's header, rewritten once its row count is known) are folded in when
the file is closed, so no finished file is read back to be hashed. ``head`` is recorded in
the manifest beside the digest. xxh3 is not cryptographic: the checksums find damage (a
truncated, flipped or half-copied file), which is all they are for.

:func:`digest_of` reads a file's mapped bytes in fixed blocks and drops each block's pages
from this process once hashed (``MADV_DONTNEED``; they stay in the page cache), so verifying
a large index does not grow the process's memory with it.
"""

from __future__ import annotations

import hashlib
import mmap
import os
from typing import Any

import numpy as np
import xxhash

XXH3 = "xxh3_128"
SHA256 = "sha256"
ALGORITHMS = (XXH3, SHA256)
BLOCK = 1 << 22  # a multiple of every page size


class Streaming:
    """The format-2 digest of a file whose bytes after ``head`` arrive in order."""

    def __init__(self) -> None:
        self._rest = xxhash.xxh3_128()

    def update(self, data: bytes | memoryview) -> None:
        self._rest.update(data)

    def finish(self, head: bytes) -> str:
        """The digest, given the file's first bytes (as finally written)."""
        return str(xxhash.xxh3_128(bytes(head) + self._rest.digest()).hexdigest())


def digest_of(raw: np.ndarray, algo: str, head: int = 0) -> str:
    """The ``algo`` digest of the mapped bytes ``raw`` (uint8, as ``Snapshot.member`` gives)."""
    if algo == SHA256:
        sha = hashlib.sha256()
        _blocks(raw, 0, sha.update)
        return sha.hexdigest()
    rest = Streaming()
    _blocks(raw, head, rest.update)
    return rest.finish(raw[:head].tobytes())


def file_sha256(path: str | os.PathLike[str]) -> str:
    """The sha256 of the file at ``path``, read in blocks of 1 MiB."""
    sha = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            sha.update(block)
    return sha.hexdigest()


def _blocks(raw: np.ndarray, start: int, update: Any) -> None:
    """Feed ``raw[start:]`` to ``update`` in blocks, each block's pages released after."""
    view = raw.data  # a memoryview, no copy
    for lo in range(start, raw.size, BLOCK):
        update(view[lo : lo + BLOCK])
        release(raw, lo, lo + BLOCK)


def release_view(view: np.ndarray) -> None:
    """Drop the pages under ``view`` (any slice of an array memory-mapped by the reader)
    from this process once its bytes have been copied out; nothing for other arrays."""
    base: Any = view
    while base is not None and not isinstance(base, mmap.mmap):
        base = base.obj if isinstance(base, memoryview) else getattr(base, "base", None)
    if base is None or not view.size:
        return
    whole = np.frombuffer(base, dtype=np.uint8)
    lo = view.ctypes.data - whole.ctypes.data
    release(whole, lo, lo + view.nbytes)


def release(raw: np.ndarray, lo: int, hi: int) -> None:
    """Drop the pages of ``raw[lo:hi]`` from this process when ``raw`` is a whole file's
    map (a read-only file map: they are read again from the page cache if touched)."""
    base = raw.base
    mapped = base.obj if isinstance(base, memoryview) else base  # np.frombuffer(mmap)
    if isinstance(mapped, mmap.mmap) and lo < raw.size:
        aligned = lo - lo % mmap.PAGESIZE
        mapped.madvise(mmap.MADV_DONTNEED, aligned, min(hi, raw.size) - aligned)
