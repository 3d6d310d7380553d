"""Open an index directory without loading it: vectors, chunk offsets and text are memory-mapped.

Opening reads only ``manifest.json`` and the ``.npy`` headers, and checks every listed file's
size; checksums are compared on demand by :meth:`Index.verify`.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, overload

import numpy as np

from docqa.errors import EmbedderMismatch, IndexCorrupt, IndexNotFound, InputError
from docqa.index import format as fmt
from docqa.types import Chunk


def open_index(path: str | os.PathLike[str]) -> Index:
    """Open the index directory at ``path``.

    Raises IndexNotFound (no directory), IndexCorrupt (a file missing, of the wrong size or
    dtype, a manifest that does not parse) or IndexVersionError (unknown format version).
    """
    root = Path(path)
    if not root.is_dir():
        raise IndexNotFound(f"no index at {root}; build one with `docqa index`")
    manifest = fmt.Manifest.from_json(_read_text(root / fmt.MANIFEST), str(root / fmt.MANIFEST))
    for rel, entry in manifest.files.items():
        size = _stat_size(root / rel)
        if size != entry.size:
            raise IndexCorrupt(
                f"{root / rel} is {size} bytes but the manifest records {entry.size}; "
                f"the file is truncated or was modified, {fmt.REBUILD}"
            )
    return Index(root, manifest)


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise IndexCorrupt(f"{path} is missing; {fmt.REBUILD}") from None
    except UnicodeDecodeError as exc:
        raise IndexCorrupt(f"{path} is not UTF-8 text ({exc}); {fmt.REBUILD}") from exc


def _stat_size(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        raise IndexCorrupt(f"{path} is missing; {fmt.REBUILD}") from None


def _load_npy(path: Path, dtype: str, shape: tuple[int, ...]) -> np.ndarray:
    """Memory-map a ``.npy`` file read-only and check its dtype and shape."""
    try:
        arr: np.ndarray = np.load(path, mmap_mode="r", allow_pickle=False)
    except FileNotFoundError:
        raise IndexCorrupt(f"{path} is missing; {fmt.REBUILD}") from None
    except (ValueError, OSError) as exc:
        raise IndexCorrupt(f"{path} is not a readable .npy file ({exc}); {fmt.REBUILD}") from exc
    if arr.dtype != np.dtype(dtype) or arr.shape != shape or not arr.flags.c_contiguous:
        raise IndexCorrupt(
            f"{path} holds {arr.dtype} {arr.shape}, expected {np.dtype(dtype)} {shape} in C order; "
            f"{fmt.REBUILD}"
        )
    return arr


class Index:
    """An opened index: ``manifest``, ``vectors``, lazy ``chunk(row)`` / ``chunks``, arrays.

    ``vectors`` is a read-only ``np.memmap`` ``(count, dim) float32`` in C order; row ``i``
    of it belongs to ``chunk(i)``.
    """

    def __init__(self, root: Path, manifest: fmt.Manifest) -> None:
        self.root = root
        self.manifest = manifest
        if manifest.dtype != "float32":
            raise IndexCorrupt(
                f"{root / fmt.MANIFEST} records dtype {manifest.dtype!r}, expected 'float32'"
            )
        self.vectors = _load_npy(root / fmt.VECTORS, "<f4", (manifest.count, manifest.dim))
        self._offsets = _load_npy(root / fmt.OFFSETS, "<i8", (manifest.count + 1,))
        blob_path = root / fmt.BLOB
        size = _stat_size(blob_path)
        self._blob = (
            np.memmap(blob_path, dtype=np.uint8, mode="r") if size else np.zeros(0, np.uint8)
        )
        if manifest.count and int(self._offsets[-1]) != size:
            raise IndexCorrupt(
                f"{blob_path} is {size} bytes but its offsets end at {int(self._offsets[-1])}; {fmt.REBUILD}"
            )
        self.chunks = ChunkView(self)

    def __len__(self) -> int:
        return self.manifest.count

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
        if name not in self.manifest.arrays:
            raise InputError(
                f"{self.root} has no array {name!r}; it has {list(self.manifest.arrays)}"
            )
        path = self.root / fmt.array_file(name)
        try:
            arr: np.ndarray = np.load(path, mmap_mode="r", allow_pickle=False)
            return arr
        except FileNotFoundError:
            raise IndexCorrupt(f"{path} is missing; {fmt.REBUILD}") from None
        except (ValueError, OSError) as exc:
            raise IndexCorrupt(
                f"{path} is not a readable .npy file ({exc}); {fmt.REBUILD}"
            ) from exc

    def verify(self) -> None:
        """Compare every file's sha256 with the manifest; raise IndexCorrupt naming the first bad one."""
        for rel, entry in self.manifest.files.items():
            sha = hashlib.sha256()
            try:
                with open(self.root / rel, "rb") as f:
                    for block in iter(lambda: f.read(1 << 20), b""):
                        sha.update(block)
            except FileNotFoundError:
                raise IndexCorrupt(f"{self.root / rel} is missing; {fmt.REBUILD}") from None
            if sha.hexdigest() != entry.sha256:
                raise IndexCorrupt(
                    f"{self.root / rel} fails its checksum (sha256 {sha.hexdigest()[:12]}..., "
                    f"manifest {entry.sha256[:12]}...); the file was modified or damaged, {fmt.REBUILD}"
                )

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
        raise EmbedderMismatch(
            f"index {self.root} was built with {rec.get('name')!r} (dim {want_dim}, config "
            f"{rec.get('config')}), query embedder is {got['name']!r} (dim {got['dim']}, config "
            f"{got['config']}); rebuild with `docqa index --embedder {got['name']}` or query "
            f"with {rec.get('name')!r}"
        )


def _same_config(a: Any, b: Any) -> bool:
    """Configs compare equal after a JSON round trip (tuples become lists, keys strings)."""
    return bool(
        json.loads(json.dumps(a, sort_keys=True)) == json.loads(json.dumps(b, sort_keys=True))
    )


class ChunkView(Sequence[Chunk]):
    """A lazy, read-only sequence of an index's chunks (each decoded when accessed)."""

    def __init__(self, index: Index) -> None:
        self._index = index

    def __len__(self) -> int:
        return len(self._index)

    @overload
    def __getitem__(self, row: int) -> Chunk: ...

    @overload
    def __getitem__(self, row: slice) -> list[Chunk]: ...

    def __getitem__(self, row: int | slice) -> Chunk | list[Chunk]:
        if isinstance(row, slice):
            return [self._index.chunk(i) for i in range(*row.indices(len(self)))]
        return self._index.chunk(row)

    def __iter__(self) -> Iterator[Chunk]:
        return (self._index.chunk(i) for i in range(len(self)))
