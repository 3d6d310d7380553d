"""An update's copy of the unchanged files' rows: chunk records and vectors, from maps.

The previous index's ``chunks.blob`` and ``vectors.npy`` are mapped once; a span of rows is
appended to the new index ``COPY_ROWS`` at a time straight from the maps (hashed and written
by the new index's sinks, see ``docqa.index.builder``): no read into a buffer first, and
the vectors are not checked for NaN again, since the update verified the previous index
before reusing a row. The pages read through the maps are dropped from the process once
copied (``MADV_DONTNEED``; they stay in the page cache), so memory stays flat however large
the index. ``os.copy_file_range`` was measured and not kept: on ext4 here it copied the
106 MB index's spans with more CPU than ``write`` from the map (0.17-0.19 against 0.12 s).
"""

from __future__ import annotations

import mmap
import os
from pathlib import Path

import numpy as np

from docqa.errors import IndexCorrupt
from docqa.index import format as fmt
from docqa.index.builder import IndexBuilder
from docqa.index.reader import Index

COPY_ROWS = 8192  # rows copied at a time (~8 MB of records, 8 MB of 256-d vectors)


class _Mapped:
    """A file of the previous index mapped read-only for the copy, at least ``needed``
    bytes long (else IndexCorrupt: reading past the end of a map is a crash)."""

    def __init__(self, path: Path, needed: int) -> None:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            if size < needed:
                raise IndexCorrupt(f"{path} of the previous index is truncated; rebuild it")
            self.map = mmap.mmap(f.fileno(), size, access=mmap.ACCESS_READ) if size else None
        self.bytes = np.frombuffer(self.map, np.uint8) if self.map else np.zeros(0, np.uint8)

    def release(self, lo: int, hi: int) -> None:
        """Drop the pages of bytes ``lo:hi`` from this process (they were copied)."""
        if self.map is not None and hi > lo:
            aligned = lo - lo % mmap.PAGESIZE
            self.map.madvise(mmap.MADV_DONTNEED, aligned, hi - aligned)

    def close(self) -> None:
        self.bytes = np.zeros(0, np.uint8)  # the array's hold on the map goes first
        if self.map is not None:
            try:
                self.map.close()
            except BufferError:
                # a view of it is still held: by a frame of the traceback being unwound, when
                # a stop (Ctrl-C, SIGTERM) interrupted ``OldFiles.copy``. The map is unmapped
                # with its last view; raising here would replace the stop with a crash
                pass
            self.map = None


class OldFiles:
    """The previous index's records and vectors, copied span by span into a new index."""

    def __init__(self, old: Index) -> None:
        self.dim = old.manifest.dim
        self.offsets = np.load(old.root / fmt.OFFSETS, mmap_mode="r")  # 8 bytes a row
        self.blob = _Mapped(old.root / fmt.BLOB, int(self.offsets[-1]))
        with open(old.root / fmt.VECTORS, "rb") as f:
            major, _ = np.lib.format.read_magic(f)
            read = np.lib.format.read_array_header_1_0
            (read if major == 1 else np.lib.format.read_array_header_2_0)(f)
            self.header = f.tell()
        self.vectors = _Mapped(old.root / fmt.VECTORS, self.header + len(old) * self.dim * 4)

    def copy(self, a: int, b: int, builder: IndexBuilder) -> None:
        """Append rows ``a:b``'s chunk records and vectors to ``builder``, ``COPY_ROWS`` at a
        time."""
        row_bytes = self.dim * 4
        for lo in range(a, b, COPY_ROWS):
            hi = min(b, lo + COPY_ROWS)
            offsets = np.asarray(self.offsets[lo : hi + 1])
            start, end = int(offsets[0]), int(offsets[-1])
            builder.add_records(self.blob.bytes[start:end].data, np.diff(offsets))
            self.blob.release(start, end)
            at = self.header + lo * row_bytes
            rows = self.vectors.bytes[at : at + (hi - lo) * row_bytes].view("<f4")
            builder.copy_vectors(rows.reshape(hi - lo, self.dim))
            self.vectors.release(at, at + (hi - lo) * row_bytes)

    def close(self) -> None:
        self.blob.close()
        self.vectors.close()
