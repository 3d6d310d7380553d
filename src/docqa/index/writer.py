"""Write an index directory atomically (see :mod:`docqa.index.format` for the layout).

Everything is written into ``.<name>.tmp-<pid>-<random>`` beside the target, each file and the
directory fsynced, then moved into place: with ``renameat2(RENAME_EXCHANGE)`` on Linux an
existing index is swapped out in one step, elsewhere it is renamed aside first (a crash in
that instant leaves ``.<name>.old-*`` holding the previous index). A build killed at any point
leaves the previous index untouched; its leftover temporary directory is removed by the next
build once its process is gone.

Rows are streamed block by block, so ``vectors`` may be a memory-map of the index being
replaced (an update can copy unchanged rows from the old reader without loading them).
"""

from __future__ import annotations

import ctypes
import errno
import hashlib
import json
import os
import shutil
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from docqa.errors import IndexBusy, InputError
from docqa.index import format as fmt
from docqa.index.lock import build_lock
from docqa.index.ownership import check_replaceable, clean_debris, resolve_target
from docqa.types import Chunk

_ROWS_PER_WRITE = 16384


class _HashingWriter:
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


def write_index(
    path: str | os.PathLike[str],
    chunks: Sequence[Chunk],
    vectors: Any,
    *,
    embedder: Any,
    arrays: Mapping[str, np.ndarray] | None = None,
    meta: Mapping[str, Any] | None = None,
) -> Path:
    """Write ``chunks`` and their ``(N, d)`` ``vectors`` as an index directory at ``path``.

    ``embedder`` is an object with ``name``, ``dim`` and ``config()`` or a dict with ``name``
    and ``config`` (and optionally ``dim``); ``arrays`` are extra named arrays (numeric, no
    objects) stored as ``arrays/<name>.npy``; ``meta`` is JSON-serialisable free-form data.
    Vectors must be finite; they are stored as float32. Replaces an existing index at
    ``path`` atomically; refuses to replace anything that is not an index. Returns the path.
    """
    target = resolve_target(path)
    emb = _embedder_record(embedder)
    n = len(chunks)
    shape = np.shape(vectors)
    if len(shape) != 2 or shape[0] != n:
        raise InputError(f"vectors must have shape ({n}, d) for {n} chunks, got {shape}")
    if emb.get("dim") not in (None, shape[1]):
        raise InputError(
            f"vectors have dimension {shape[1]} but embedder {emb['name']!r} says {emb['dim']}"
        )
    manifest = fmt.Manifest(
        embedder=emb,
        dim=int(shape[1]),
        count=n,
        files={},
        created=datetime.now(UTC).isoformat(timespec="seconds"),
        arrays=tuple(sorted(arrays or {})),
        meta=_json_ready(dict(meta or {}), "meta"),
    )
    with build_lock(target):  # a second writer of the same path raises IndexBusy
        check_replaceable(target)
        target.parent.mkdir(parents=True, exist_ok=True)
        clean_debris(target)
        _write_locked(target, chunks, vectors, arrays or {}, manifest)
    return target


def _write_locked(
    target: Path,
    chunks: Sequence[Chunk],
    vectors: Any,
    arrays: Mapping[str, np.ndarray],
    manifest: fmt.Manifest,
) -> None:
    """Write the files into a work folder beside ``target``, then install it there."""
    tmp = work_dir(target)
    try:  # from the mkdir on: Ctrl-C or SIGTERM as it returns must not leave the folder
        tmp.mkdir()
        files = {
            fmt.VECTORS: _write_vectors(tmp / fmt.VECTORS, vectors),
            **_write_chunks(tmp, chunks),
            **_write_arrays(tmp, arrays),
        }
        manifest = replace(manifest, files=files)
        _write_bytes(tmp / fmt.MANIFEST, manifest.to_json().encode("utf-8"))
        fsync_path(tmp / fmt.ARRAYS_DIR)
        fsync_path(tmp)
        _install(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _embedder_record(embedder: Any) -> dict[str, Any]:
    """``{"name", "dim", "config"}`` from an Embedder-like object or a dict."""
    if isinstance(embedder, Mapping):
        if "name" not in embedder:
            raise InputError(
                "embedder dict needs a 'name' (and 'config'); got keys " + str(sorted(embedder))
            )
        rec = {
            "name": str(embedder["name"]),
            "dim": embedder.get("dim"),
            "config": embedder.get("config", {}),
        }
    elif all(hasattr(embedder, a) for a in ("name", "dim", "config")):
        rec = {"name": str(embedder.name), "dim": int(embedder.dim), "config": embedder.config()}
    else:
        raise InputError(
            f"embedder must have name, dim and config(); got {type(embedder).__name__}"
        )
    return _json_ready(rec, "embedder config")


def _json_ready(value: dict[str, Any], what: str) -> dict[str, Any]:
    try:
        return dict(json.loads(json.dumps(value)))
    except (TypeError, ValueError) as exc:
        raise InputError(f"{what} must be JSON-serialisable: {exc}") from exc


def _write_vectors(path: Path, vectors: Any) -> fmt.FileEntry:
    """Stream ``vectors`` as float32 C-order ``.npy``, checking finiteness block by block."""
    n, d = np.shape(vectors)
    with open(path, "wb") as raw:
        out = _HashingWriter(raw)
        header = {"descr": "<f4", "fortran_order": False, "shape": (n, d)}
        np.lib.format.write_array_header_1_0(out, header)
        for start in range(0, n, _ROWS_PER_WRITE):
            block = np.ascontiguousarray(vectors[start : start + _ROWS_PER_WRITE], dtype="<f4")
            bad = np.flatnonzero(~np.isfinite(block).all(axis=1))
            if bad.size:
                raise InputError(
                    f"vector row {start + int(bad[0])} contains NaN or inf; re-embed it"
                )
            out.write(block.data.cast("B"))
        _sync(raw)
    return out.entry()


def _chunk_record(chunk: Chunk) -> bytes:
    doc = {
        "id": chunk.id,
        "section": chunk.section,
        "heading_path": list(chunk.heading_path),
        "source": chunk.source,
        "position": chunk.position,
        "start_line": chunk.start_line,
        "end_line": chunk.end_line,
        "text": chunk.text,
        "content_hash": chunk.content_hash,
        "metadata": dict(chunk.metadata),
    }
    try:
        return json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    except (TypeError, ValueError) as exc:
        raise InputError(
            f"chunk {chunk.id!r} has metadata that is not JSON-serialisable: {exc}"
        ) from exc


def _write_chunks(tmp: Path, chunks: Iterable[Chunk]) -> dict[str, fmt.FileEntry]:
    """Write the UTF-8 blob and its ``int64 (N + 1,)`` offsets array."""
    offsets = [0]
    with open(tmp / fmt.BLOB, "wb") as raw:
        blob = _HashingWriter(raw)
        for chunk in chunks:
            blob.write(_chunk_record(chunk))
            offsets.append(blob.size)
        _sync(raw)
    return {
        fmt.BLOB: blob.entry(),
        fmt.OFFSETS: _write_npy(tmp / fmt.OFFSETS, np.asarray(offsets, np.int64)),
    }


def _write_arrays(tmp: Path, arrays: Mapping[str, np.ndarray]) -> dict[str, fmt.FileEntry]:
    (tmp / fmt.ARRAYS_DIR).mkdir()
    out = {}
    for name, arr in sorted(arrays.items()):
        rel = fmt.array_file(name)
        a = np.asarray(arr)
        if a.dtype.hasobject:
            raise InputError(f"array {name!r} has dtype {a.dtype}; store numeric arrays only")
        out[rel] = _write_npy(tmp / rel, a)
    return out


def work_dir(target: Path) -> Path:
    """A new name beside ``target`` for a build in progress, ``.NAME.tmp-PID-HEX`` (the
    debris pattern of ``docqa.index.ownership``). ``os.urandom``, not ``secrets``: the same
    bytes, without importing ``random``, ``hmac`` and ``base64`` (1.3 ms of every update)."""
    return target.parent / f".{target.name}.tmp-{os.getpid()}-{os.urandom(4).hex()}"


def _write_npy(path: Path, arr: np.ndarray, *, sync: bool = True) -> fmt.FileEntry:
    """Write ``arr`` as ``.npy`` at ``path`` (fsynced unless ``sync`` is False: then the
    caller syncs it, with others, before the directory is installed)."""
    with open(path, "wb") as raw:
        out = _HashingWriter(raw)
        np.lib.format.write_array(out, np.ascontiguousarray(arr), allow_pickle=False)
        if sync:
            _sync(raw)
    return out.entry()


def _write_bytes(path: Path, data: bytes, *, sync: bool = True) -> None:
    with open(path, "wb") as raw:
        raw.write(data)
        if sync:
            _sync(raw)


def _sync(raw: BinaryIO) -> None:
    raw.flush()
    os.fsync(raw.fileno())


def fsync_path(path: Path) -> None:
    """fsync the file or directory at ``path`` (opened read-only for it)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _install(tmp: Path, target: Path, *, sync: bool = True) -> None:
    """Move the finished ``tmp`` directory to ``target``, replacing an old index (``sync``:
    then fsync the folder that holds them, which makes the move durable)."""
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
