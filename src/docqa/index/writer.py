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

import json
import os
import shutil
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from docqa.errors import InputError
from docqa.index import format as fmt
from docqa.index.files import (
    HashingWriter,
    flush_and_sync,
    fsync_path,
    install,
    work_dir,
    write_manifest,
    write_npy,
)
from docqa.index.lock import build_lock
from docqa.index.ownership import check_replaceable, clean_debris, resolve_target
from docqa.types import Chunk

_ROWS_PER_WRITE = 16384


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
    emb = embedder_record(embedder)
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
        meta=json_ready(dict(meta or {}), "meta"),
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
        fsync_path(tmp / fmt.ARRAYS_DIR)
        write_manifest(tmp, manifest)  # fsyncs tmp too
        install(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def embedder_record(embedder: Any) -> dict[str, Any]:
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
    return json_ready(rec, "embedder config")


def json_ready(value: dict[str, Any], what: str) -> dict[str, Any]:
    try:
        return dict(json.loads(json.dumps(value)))
    except (TypeError, ValueError) as exc:
        raise InputError(f"{what} must be JSON-serialisable: {exc}") from exc


def _write_vectors(path: Path, vectors: Any) -> fmt.FileEntry:
    """Stream ``vectors`` as float32 C-order ``.npy``, checking finiteness block by block."""
    n, d = np.shape(vectors)
    with open(path, "wb") as raw:
        out = HashingWriter(raw)
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
        flush_and_sync(raw)
    return out.entry()


def chunk_record(chunk: Chunk) -> bytes:
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
        blob = HashingWriter(raw)
        for chunk in chunks:
            blob.write(chunk_record(chunk))
            offsets.append(blob.size)
        flush_and_sync(raw)
    return {
        fmt.BLOB: blob.entry(),
        fmt.OFFSETS: write_npy(tmp / fmt.OFFSETS, np.asarray(offsets, np.int64)),
    }


def _write_arrays(tmp: Path, arrays: Mapping[str, np.ndarray]) -> dict[str, fmt.FileEntry]:
    (tmp / fmt.ARRAYS_DIR).mkdir()
    out = {}
    for name, arr in sorted(arrays.items()):
        rel = fmt.array_file(name)
        a = np.asarray(arr)
        if a.dtype.hasobject:
            raise InputError(f"array {name!r} has dtype {a.dtype}; store numeric arrays only")
        out[rel] = write_npy(tmp / rel, a)
    return out
