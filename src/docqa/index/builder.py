"""Write an index directory as batches arrive, then install it atomically.

``IndexBuilder`` is the appending twin of :func:`docqa.index.writer.write_index`: the same
directory layout, the same chunk records (``writer.chunk_record`` bytes), the same temporary
sibling and the same replacement (``ownership.check_replaceable`` / ``files.install``), but
vectors, chunk records and any extra array are appended to their files as they are produced,
so the memory a build holds does not grow with the collection.

An appended ``.npy`` starts with a header reserved for an unknown row count; ``close`` writes
the real header over it (numpy pads every version-1.0 header to 64-byte multiples, 128 bytes
for any count below 10**15). Every file is checksummed as its bytes are written (the header
folded in at the end, see :mod:`docqa.index.checksum`), handed to the disk every
``WRITEBACK_BYTES`` as it grows, and fsynced once: the rows' files in a background thread
from ``close_rows`` on (while the postings merge), the others at ``commit``.
"""

from __future__ import annotations

import functools
import io
import os
import shutil
import sys
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Self

import numpy as np

from docqa.errors import InputError
from docqa.index import checksum, writer
from docqa.index import format as fmt
from docqa.index.files import fsync_path, install, work_dir, write_manifest
from docqa.index.ownership import check_replaceable, clean_debris
from docqa.threads import Background, each_at_once

_SYNC_THREADS = 8
WRITEBACK_BYTES = 8 << 20  # a file's new bytes are handed to the disk every 8 MiB


def _npy_header(dtype: np.dtype[Any], shape: tuple[int, ...]) -> bytes:
    out = io.BytesIO()
    header = {"descr": np.lib.format.dtype_to_descr(dtype), "fortran_order": False, "shape": shape}
    np.lib.format.write_array_header_1_0(out, header)
    return out.getvalue()


class _Sink:
    """A file written front to back after a ``head`` of bytes reserved for the end, hashed
    as the bytes pass (``checksum.Streaming``): nothing is read back to be checksummed."""

    def __init__(self, path: Path, head: bytes = b"") -> None:
        self.path = path
        self.raw = open(path, "wb")  # noqa: SIM115 - closed by finish() or abort()
        self.raw.write(head)
        self.head = len(head)
        self.size = len(head)
        self._handed = 0  # bytes before this were handed to the disk (``_write_back``)
        self._digest = checksum.Streaming()

    def write(self, data: bytes | memoryview) -> None:
        self._digest.update(data)
        self.size += self.raw.write(data)
        if self.size - self._handed >= WRITEBACK_BYTES:
            self._write_back(self._handed)

    def _write_back(self, start: int) -> None:
        """Hand the bytes from ``start`` on to the disk now, without waiting (Linux
        ``sync_file_range(SYNC_FILE_RANGE_WRITE)``): the fsync at commit then has little
        left to write, instead of the whole index at once after the last row."""
        self.raw.flush()
        if (call := _sync_file_range()) is not None:
            call(self.raw.fileno(), start, 0, 2)  # 0: to the end; 2: SYNC_FILE_RANGE_WRITE
        self._handed = self.size

    def finish(self, head: bytes = b"") -> fmt.FileEntry:
        """Write the final ``head`` over the reserved one, close, and give the file's entry
        (flushed, not yet fsynced: ``IndexBuilder.commit`` syncs every file together)."""
        if len(head) != self.head:
            raise InputError(f"{self.path.name}: a head of {len(head)} bytes, {self.head} kept")
        if head:
            self.raw.seek(0)
            self.raw.write(head)
        self.raw.close()
        return fmt.FileEntry(self.size, self._digest.finish(head), checksum.XXH3, self.head)

    def abort(self) -> None:
        self.raw.close()


@functools.cache
def _sync_file_range() -> Any:
    """libc's ``sync_file_range`` (Linux), or None."""
    import ctypes

    if sys.platform != "linux":
        return None
    try:
        fn = ctypes.CDLL(None, use_errno=True).sync_file_range
    except (AttributeError, OSError):
        return None
    fn.argtypes = [ctypes.c_int, ctypes.c_int64, ctypes.c_int64, ctypes.c_uint]
    return fn


def sync_files(paths: list[Path]) -> None:
    """fsync each closed file once, all at the same time (``os.fsync`` releases the GIL: the
    disk and the filesystem's journal commit them together instead of one after another)."""
    each_at_once(fsync_path, paths, _SYNC_THREADS)


class NpyAppender:
    """An ``.npy`` file of ``dtype`` rows of ``row_shape`` grown by ``append``.

    ``finite=True`` refuses rows holding NaN or inf (the vectors' rule in ``write_index``).
    """

    def __init__(
        self, path: Path, dtype: Any, row_shape: tuple[int, ...] = (), *, finite: bool = False
    ) -> None:
        self.path = path
        self.dtype = np.dtype(dtype).newbyteorder("<")
        self.row_shape = row_shape
        self.rows = 0
        self._finite = finite
        reserved = len(_npy_header(self.dtype, (10**15 - 1, *row_shape)))
        self._sink = _Sink(path, b"\0" * reserved)

    def append(self, block: Any) -> None:
        """Append rows (shape ``(n, *row_shape)``), converted to the file's dtype."""
        arr = np.ascontiguousarray(block, dtype=self.dtype)
        if arr.shape[1:] != self.row_shape:
            raise InputError(
                f"{self.path.name}: rows must have shape (n, {self.row_shape}), got {arr.shape}"
            )
        if self._finite:
            bad = np.flatnonzero(~np.isfinite(arr.reshape(len(arr), -1)).all(axis=1))
            if bad.size:
                raise InputError(
                    f"vector row {self.rows + int(bad[0])} contains NaN or inf; re-embed it"
                )
        self._sink.write(arr.data.cast("B"))
        self.rows += len(arr)

    def append_verified(self, rows: np.ndarray) -> None:
        """Append rows of this file's dtype and shape read from an index this build has
        verified (``Index.verify``: finite vectors), written as they are, not checked again."""
        if rows.dtype != self.dtype or rows.shape[1:] != self.row_shape:
            raise InputError(f"{self.path.name}: rows of {rows.dtype} {rows.shape} do not fit")
        self._sink.write(np.ascontiguousarray(rows).data.cast("B"))
        self.rows += len(rows)

    def close(self) -> fmt.FileEntry:
        """Write the real header and return the file's entry."""
        return self._sink.finish(_npy_header(self.dtype, (self.rows, *self.row_shape)))

    def abort(self) -> None:
        self._sink.abort()


class IndexBuilder:
    """A temporary index directory beside ``target`` filled in batches, installed by
    ``commit``. Use as a context manager: leaving it without ``commit`` (an error, Ctrl-C)
    removes the temporary directory and leaves whatever was at ``target`` untouched.

    ``durable=False`` (an index inside another one's temporary directory, as a delta is)
    fsyncs nothing: ``commit`` lists in ``unsynced`` every file and folder it wrote, at their
    installed paths, for the caller to fsync with its own: one round, where the builder
    would make two and four single fsyncs."""

    def __init__(
        self, target: str | os.PathLike[str], *, storage: str = "float32", durable: bool = True
    ) -> None:
        self.target = Path(target).absolute()
        self.durable = durable
        self.unsynced: list[Path] = []
        check_replaceable(self.target)
        self.target.parent.mkdir(parents=True, exist_ok=True)
        clean_debris(self.target)
        self.storage = storage
        self.tmp = work_dir(self.target)
        self._appenders: dict[str, NpyAppender] = {}
        self._blob: _Sink  # set in the try below
        self.vectors: NpyAppender | None = None
        self._compact: dict[str, NpyAppender] = {}
        self.scratch = self.tmp / "scratch"  # spill files of the build, removed at commit
        self._closed: dict[str, fmt.FileEntry] = {}  # files closed by ``close_rows``
        self._synced: Background[None] | None = None
        # a stop (Ctrl-C, SIGTERM) from the mkdir on, before ``with`` has the builder to
        # abort, must not leave the folder: the test of docqa watch's SIGTERM met it
        try:
            self.tmp.mkdir()
            (self.tmp / fmt.ARRAYS_DIR).mkdir()
            self._blob = _Sink(self.tmp / fmt.BLOB)
            self.offsets = self._open(fmt.OFFSETS, np.int64)
            self.offsets.append(np.zeros(1, np.int64))
            self.scratch.mkdir()
        except BaseException:
            self.abort()
            raise

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.tmp.exists() and exc[0] is not None:
            self.abort()

    def _open(
        self, rel: str, dtype: Any, row_shape: tuple[int, ...] = (), **kw: Any
    ) -> NpyAppender:
        appender = NpyAppender(self.tmp / rel, dtype, row_shape, **kw)
        self._appenders[rel] = appender
        return appender

    def open_vectors(self, dim: int) -> NpyAppender:
        """The appender of ``vectors.npy`` (float32 rows of ``dim``), opened once."""
        if self.vectors is None:
            self.vectors = self._open(fmt.VECTORS, np.float32, (dim,), finite=True)
        return self.vectors

    def append_vectors(self, block: np.ndarray) -> None:
        """Append float32 rows ``(n, dim)``, and with ``storage="int8"`` their int8 codes and
        bound terms (``docqa.search.compact``: each row is quantised on its own, so block by
        block gives the arrays the whole matrix would)."""
        self.open_vectors(block.shape[1]).append(block)
        self._append_compact(block)

    def copy_vectors(self, rows: np.ndarray) -> None:
        """Append float32 rows ``(n, dim)`` of the previous index, which this build verified:
        written as they are (``NpyAppender.append_verified``), int8 codes made as for new ones."""
        self.open_vectors(rows.shape[1]).append_verified(rows)
        self._append_compact(rows)

    def _append_compact(self, block: np.ndarray) -> None:
        if self.storage == "float32" or not len(block):
            return
        from docqa.search.compact import storage_arrays

        for name, arr in storage_arrays(self.storage, block).items():
            if name not in self._compact:
                self._compact[name] = self._open(fmt.array_file(name), arr.dtype, arr.shape[1:])
            self._compact[name].append(arr)

    def array(self, name: str, dtype: Any) -> NpyAppender:
        """An appender for the extra 1-D array ``name`` (``arrays/<name>.npy``)."""
        return self._open(fmt.array_file(name), dtype)

    @property
    def count(self) -> int:
        """Chunks added so far."""
        return self.offsets.rows - 1

    def add_records(self, blob: bytes | memoryview, lengths: np.ndarray) -> None:
        """Append chunk records (``writer.chunk_record`` bytes, end to end) and their byte
        lengths (int64 ``(n,)``)."""
        start = self._blob.size
        self._blob.write(blob)
        self.offsets.append(start + np.cumsum(lengths, dtype=np.int64))

    def close_rows(self) -> None:
        """Close every file written so far (the rows: records, vectors, their arrays) and
        fsync them in a background thread, so that the disk writes them while other work,
        e.g. the postings merge, runs; files opened after it are synced at ``commit``."""
        self._closed.update({rel: a.close() for rel, a in self._appenders.items()})
        self._closed[fmt.BLOB] = self._blob.finish()
        self._appenders = {}
        if self.durable:
            self._synced = Background(sync_files, [self.tmp / rel for rel in self._closed])

    def _close_all(self) -> dict[str, fmt.FileEntry]:
        """Close what is still open, fsync it and wait for ``close_rows``'s fsyncs."""
        files = {rel: a.close() for rel, a in self._appenders.items()}
        if fmt.BLOB not in self._closed:
            files[fmt.BLOB] = self._blob.finish()
        if self.durable:
            sync_files([self.tmp / rel for rel in files])
            self._wait_synced()
        return {**self._closed, **files}

    def _wait_synced(self) -> None:
        if self._synced is not None:
            synced, self._synced = self._synced, None
            synced.result()  # raises an fsync's OSError here

    def commit(self, embedder: Any, meta: Mapping[str, Any]) -> Path:
        """Close every file, write the manifest, install the directory at ``target``."""
        vectors = self.open_vectors(int(getattr(embedder, "dim", 0)) or 1)
        if vectors.rows != self.count:
            raise InputError(f"{vectors.rows} vectors for {self.count} chunks")
        try:
            shutil.rmtree(self.scratch)
            files = self._close_all()
            arrays = sorted(
                rel[len(fmt.ARRAYS_DIR) + 1 : -4] for rel in files if rel.startswith(fmt.ARRAYS_DIR)
            )
            manifest = fmt.Manifest(
                embedder=writer.embedder_record(embedder),
                dim=vectors.row_shape[0],
                count=self.count,
                files=dict(sorted(files.items())),
                created=datetime.now(UTC).isoformat(timespec="seconds"),
                arrays=tuple(arrays),
                meta=writer.json_ready(dict(meta), "meta"),
            )
            write_manifest(self.tmp, manifest, sync=self.durable)  # durable: tmp fsynced too
            if self.durable:
                fsync_path(self.tmp / fmt.ARRAYS_DIR)
                install(self.tmp, self.target)
            else:
                install(self.tmp, self.target, sync=False)
                rels = [*files, fmt.MANIFEST, fmt.ARRAYS_DIR, "."]
                self.unsynced = [*(self.target / rel for rel in rels), self.target.parent]
        except BaseException:
            self.abort()
            raise
        return self.target

    def abort(self) -> None:
        """Close and remove the temporary directory."""
        if self._synced is not None:
            self._synced.wait()  # its error, if any, no longer matters
            self._synced = None
        blob: _Sink | None = getattr(self, "_blob", None)  # None: stopped before it was made
        if blob is not None:
            blob.abort()
        for appender in self._appenders.values():
            appender.abort()
        shutil.rmtree(self.tmp, ignore_errors=True)
