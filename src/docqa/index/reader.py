"""Open an index directory without loading it: vectors, chunk offsets and text are memory-mapped.

Opening maps one build whole through one directory descriptor (see
:mod:`docqa.index.snapshot`), so a search racing a rebuild sees the old index or the new one,
never a mix. What is checked when:

- on every open (cheap, no full read): the manifest parses, names the docqa format and a
  supported version and lists only files of the layout; every listed file is a regular file
  of the recorded size; every ``.npy`` header parses and matches its data length; vectors and
  offsets have the recorded dtype and shape; the offsets start at 0, never decrease and end at
  the blob's size (BM25 arrays are checked by :class:`~docqa.keyword.BM25Index`);
- by :meth:`Index.verify` (``docqa verify``, ``docqa index --verify``, and before an update
  reuses any row): every file's checksum against the manifest, then every vector finite.
"""

from __future__ import annotations

import json
import os
from abc import abstractmethod
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol, overload

import numpy as np

from docqa.errors import EmbedderMismatch, IndexCorrupt, InputError
from docqa.index import checksum
from docqa.index import format as fmt
from docqa.index.snapshot import Snapshot, npy_view, read_snapshot
from docqa.types import Chunk


def open_index(path: str | os.PathLike[str]) -> Index:
    """Open the index directory at ``path``.

    Raises IndexNotFound (no directory), IndexCorrupt (a file missing, of the wrong size or
    dtype, a manifest that does not parse), IndexVersionError (unknown format version) or
    IndexStoreError (a sharded index, as an update written as a delta is, which
    ``Collection.open`` reads).
    """
    return Index(read_snapshot(Path(path)))


def _typed(snap: Snapshot, rel: str, dtype: str, shape: tuple[int, ...]) -> np.ndarray:
    """The mapped ``.npy`` member ``rel``, checked to hold ``dtype`` ``shape``."""
    arr = npy_view(snap.member(rel), snap.root / rel)
    if arr.dtype != np.dtype(dtype) or arr.shape != shape:
        raise IndexCorrupt(
            f"{snap.root / rel} holds {arr.dtype} {arr.shape}, expected {np.dtype(dtype)} "
            f"{shape} in C order; {fmt.REBUILD}"
        )
    return arr


def _check_offsets(snap: Snapshot, offsets: np.ndarray, blob_size: int) -> None:
    where = snap.root / fmt.OFFSETS
    if offsets[0] != 0 or int(offsets[-1]) != blob_size:
        raise IndexCorrupt(
            f"{where} spans {int(offsets[0])}..{int(offsets[-1])} but "
            f"{snap.root / fmt.BLOB} is {blob_size} bytes; {fmt.REBUILD}"
        )
    if offsets.size > 1 and bool((np.diff(offsets) < 0).any()):
        raise IndexCorrupt(f"{where} is not in ascending order; {fmt.REBUILD}")


class _ChunkRows(Protocol):
    """What ``ChunkView`` reads: a row count and one chunk by row (an index or a sharded one)."""

    def __len__(self) -> int: ...

    def chunk(self, row: int) -> Chunk: ...


class ChunkSequence(Sequence[Chunk]):
    """A read-only sequence of chunks by row, each made by ``chunk(row)`` when accessed; a
    subclass gives ``__len__`` and ``chunk``."""

    @abstractmethod
    def __len__(self) -> int: ...

    @abstractmethod
    def chunk(self, row: int) -> Chunk:
        """The chunk of ``row`` (``0 <= row < len(self)``)."""

    @overload
    def __getitem__(self, row: int) -> Chunk: ...

    @overload
    def __getitem__(self, row: slice) -> list[Chunk]: ...

    def __getitem__(self, row: int | slice) -> Chunk | list[Chunk]:
        if isinstance(row, slice):
            return [self.chunk(i) for i in range(*row.indices(len(self)))]
        return self.chunk(row)

    def __iter__(self) -> Iterator[Chunk]:
        return (self.chunk(i) for i in range(len(self)))


class ChunkView(ChunkSequence):
    """A lazy, read-only sequence of an index's chunks (each decoded when accessed), in row
    order; for a sharded index, in global row order."""

    def __init__(self, index: _ChunkRows) -> None:
        self._index = index

    def __len__(self) -> int:
        return len(self._index)

    def chunk(self, row: int) -> Chunk:
        """The index's chunk of ``row``."""
        return self._index.chunk(row)


class ManifestRows:
    """What an index and a sharded index share: the row count their ``manifest`` records and
    their chunks in row order (each decoded by the subclass's ``chunk(row)``)."""

    manifest: Any

    def chunk(self, row: int) -> Chunk:
        raise NotImplementedError

    @property
    def chunks(self) -> ChunkView:
        """The chunks in row order, decoded when accessed (a new view each time: an index
        and its view hold no cycle, so a dropped index closes its maps at once)."""
        return ChunkView(self)

    def __len__(self) -> int:
        return int(self.manifest.count)


class Index(ManifestRows):
    """An opened index: ``manifest``, ``vectors``, lazy ``chunk(row)`` / ``chunks``, arrays.

    ``vectors`` is a read-only memory-mapped ``(count, dim) float32`` array in C order; row
    ``i`` of it belongs to ``chunk(i)``. Every file comes from the same build.
    """

    def __init__(self, snapshot: Snapshot) -> None:
        manifest, root = snapshot.manifest, snapshot.root
        self.root = root
        self.manifest = manifest
        self._snapshot = snapshot
        if manifest.dtype != "float32":
            raise IndexCorrupt(
                f"{root / fmt.MANIFEST} records dtype {manifest.dtype!r}, expected 'float32'"
            )
        self.vectors = _typed(snapshot, fmt.VECTORS, "<f4", (manifest.count, manifest.dim))
        self._offsets = _typed(snapshot, fmt.OFFSETS, "<i8", (manifest.count + 1,))
        self._blob = snapshot.member(fmt.BLOB)
        _check_offsets(snapshot, self._offsets, self._blob.size)
        self._arrays = {
            name: npy_view(snapshot.member(fmt.array_file(name)), root / fmt.array_file(name))
            for name in manifest.arrays
        }

    def __repr__(self) -> str:
        return f"Index({str(self.root)!r}, count={len(self)}, embedder={self.manifest.embedder_name!r})"

    def chunk(self, row: int) -> Chunk:
        """The chunk of ``row`` (0-based; negative counts from the end), read from the blob."""
        n = len(self)
        if not -n <= row < n:
            raise IndexError(f"row {row} is outside 0..{n - 1} of {self.root}")
        row %= n
        lo, hi = int(self._offsets[row]), int(self._offsets[row + 1])
        try:
            doc = json.loads(bytes(self._blob[lo:hi]).decode("utf-8"))
            return Chunk(
                id=doc["id"],
                section=doc["section"],
                heading_path=tuple(doc["heading_path"]),
                source=doc["source"],
                position=doc["position"],
                start_line=doc["start_line"],
                end_line=doc["end_line"],
                text=doc["text"],
                content_hash=doc["content_hash"],
                metadata=doc["metadata"],
            )
        except (ValueError, KeyError, TypeError) as exc:
            raise IndexCorrupt(
                f"chunk {row} in {self.root / fmt.BLOB} is unreadable ({exc!r}); {fmt.REBUILD}"
            ) from exc

    def raw_records(self, start: int, stop: int) -> tuple[memoryview, np.ndarray]:
        """Rows ``start:stop`` as stored: their chunk records end to end (UTF-8 JSON bytes)
        and each one's length in bytes (int64), for copying into another index unparsed."""
        offsets = np.asarray(self._offsets[start : stop + 1])
        records = self._blob[int(offsets[0]) : int(offsets[-1])]
        return records.data.cast("B"), np.diff(offsets)

    def array(self, name: str) -> np.ndarray:
        """The extra array ``name`` stored by the writer, memory-mapped read-only."""
        if name not in self._arrays:
            raise InputError(
                f"{self.root} has no array {name!r}; it has {list(self.manifest.arrays)}"
            )
        return self._arrays[name]

    def verify(self) -> None:
        """Compare every file's checksum with the manifest, then check every vector is
        finite and every int8 bound term finite and non-negative; raise IndexCorrupt naming
        the first bad file or row. Reads the
        mapped bytes of this open index (the ones searches use), never a path again, in
        blocks whose pages are released as it goes (memory does not grow with the index)."""
        for rel, entry in self.manifest.files.items():
            got = checksum.digest_of(self._snapshot.member(rel), entry.algo, entry.head)
            if got != entry.digest:
                raise IndexCorrupt(
                    f"{self.root / rel} fails its checksum ({entry.algo} {got[:12]}..., "
                    f"manifest {entry.digest[:12]}...); the file was modified or damaged, "
                    f"{fmt.REBUILD}"
                )
        raw, row_bytes = self._snapshot.member(fmt.VECTORS), self.manifest.dim * 4
        header = raw.size - len(self) * row_bytes
        for start in range(0, len(self), 1 << 14):
            block = self.vectors[start : start + (1 << 14)]
            bad = np.flatnonzero(~np.isfinite(block).all(axis=1))
            checksum.release(
                raw, header + start * row_bytes, header + (start + len(block)) * row_bytes
            )
            if bad.size:
                raise IndexCorrupt(
                    f"{self.root / fmt.VECTORS} row {start + int(bad[0])} holds NaN or inf; "
                    f"{fmt.REBUILD}"
                )
        self._verify_int8_terms()

    def _verify_int8_terms(self) -> None:
        """The int8 storage's per-row bound terms are finite and non-negative (the search's
        skip tests assume it; ``docqa.search.compact.check_terms``)."""
        names = [n for n in ("int8_scale", "int8_radius", "int8_code_norm") if n in self._arrays]
        if names:
            from docqa.search.compact import check_terms

            for name in names:
                where = f"int8 array {name!r} ({self.root / fmt.array_file(name)})"
                check_terms(self._arrays[name], where)

    def check_embedder(self, embedder: Any) -> None:
        """Raise EmbedderMismatch unless ``embedder`` (name, dim, config()) is the recorded one."""
        rec = self.manifest.embedder
        got = {"name": str(embedder.name), "dim": int(embedder.dim), "config": embedder.config()}
        want_dim = rec.get("dim", self.manifest.dim)
        if (
            got["name"] == rec.get("name")
            and got["dim"] == want_dim
            and _same_config(got["config"], rec.get("config", {}))
        ):
            return
        from docqa.embed.choices import index_command

        command = index_command(got["config"], str(self.root))
        rebuild = (
            f"rebuild it for this one with {command}"
            if command
            else "rebuild it with this embedder (docqa.build_index)"
        )
        raise EmbedderMismatch(
            f"index {self.root} was built with {rec.get('name')!r} (dim {want_dim}, config "
            f"{rec.get('config')}), query embedder is {got['name']!r} (dim {got['dim']}, config "
            f"{got['config']}); query with the index's own embedder (Collection.open rebuilds "
            f"it) or {rebuild}"
        )


def _same_config(a: Any, b: Any) -> bool:
    """Configs compare equal after a JSON round trip (tuples become lists, keys strings)."""
    return bool(
        json.loads(json.dumps(a, sort_keys=True)) == json.loads(json.dumps(b, sort_keys=True))
    )
