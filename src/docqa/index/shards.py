"""A sharded index: a top-level manifest over shard directories, each in today's format.

::

    manifest.json              format "docqa-shards": shards with row offsets, BM25 statistics
    shard-00000/ ...           an ordinary index directory (own manifest and checksums)
    shard-00001/ ...
    global/bm25_global_*.npy   collection-wide BM25 term statistics (``CorpusStats``)

Global row id = shard offset + local row id; shards are listed in row order and their counts
add up to ``count``. An index updated by a delta (see :mod:`docqa.pipeline.delta`) is of this
format too, version 2: each shard then has a ``map`` instead of an offset, an int64 array
giving each local row's global id, -1 for a row deleted since (the rows of a file that was
edited or removed). Each map increases over its live rows and together they number the
live rows ``0..count-1`` once each, in load order: the order a full rebuild would give them. The top-level manifest records each shard's manifest sha256 (so a shard
swapped underneath is caught at open) and the statistics' sizes and checksums. The whole
directory is written in a temporary sibling and moved into place in one rename.
"""

from __future__ import annotations

import bisect
import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from docqa.errors import IndexCorrupt, IndexVersionError
from docqa.index import format as fmt
from docqa.index import snapshot
from docqa.index.checksum import file_sha256
from docqa.index.files import fsync_path, write_manifest, write_npy
from docqa.index.reader import Index, ManifestRows, open_index
from docqa.keyword.stats import STATS_ARRAYS, CorpusStats
from docqa.types import Chunk

SHARDS_FORMAT = "docqa-shards"
SHARDS_VERSION = 1
MAPPED_VERSION = 2  # shards with row maps (a delta-updated index)
STATS_DIR = "global"


def shard_name(i: int) -> str:
    """Directory name of shard ``i``: ``shard-00000``."""
    return f"shard-{i:05d}"


@dataclass(frozen=True)
class ShardEntry:
    """One shard: its directory (relative), first global row, rows, manifest sha256."""

    path: str
    offset: int
    count: int
    manifest_sha256: str
    map: str | None = None  # relative path of the local -> global row map (version 2)

    def to_dict(self) -> dict[str, Any]:
        doc = {"path": self.path, "offset": self.offset, "count": self.count,
               "manifest_sha256": self.manifest_sha256}  # fmt: skip
        return doc if self.map is None else {**doc, "map": self.map}


@dataclass(frozen=True)
class ShardsManifest(fmt.Recorded):
    """Contents of a sharded index's top-level ``manifest.json``."""

    shards: tuple[ShardEntry, ...]
    bm25: Mapping[str, Any]  # {"config": BM25Config dict, "n_docs": N, "total_length": T}
    files: Mapping[str, fmt.FileEntry]
    meta: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> str:
        """Pretty, key-sorted JSON text."""
        mapped = any(s.map is not None for s in self.shards)
        doc = {
            "format": SHARDS_FORMAT,
            "version": MAPPED_VERSION if mapped else SHARDS_VERSION,
            **self.recorded(),
            "shards": [s.to_dict() for s in self.shards],
            "bm25": dict(self.bm25),
            "files": {p: {"size": f.size, "sha256": f.digest} for p, f in self.files.items()},
            "meta": dict(self.meta),
        }
        if mapped:  # a delta's manifest lists every file: C's encoder, not the indenting one
            return json.dumps(doc, sort_keys=True, ensure_ascii=False, separators=(",", ":")) + "\n"
        return json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n"

    @classmethod
    def from_json(cls, text: str, where: str) -> ShardsManifest:
        """Parse; ``IndexCorrupt`` / ``IndexVersionError`` name ``where``."""
        doc = fmt.parse_manifest(text, where, SHARDS_FORMAT, "a sharded docqa index manifest")
        if doc.get("version") not in (SHARDS_VERSION, MAPPED_VERSION):
            raise IndexVersionError(
                f"{where} has sharded format version {doc.get('version')!r}, this docqa reads "
                f"[{SHARDS_VERSION}, {MAPPED_VERSION}]; upgrade docqa, or {fmt.REPLACE}"
            )
        try:
            return cls(
                **cls.read(doc),
                shards=tuple(
                    ShardEntry(
                        str(s["path"]),
                        int(s["offset"]),
                        int(s["count"]),
                        str(s["manifest_sha256"]),
                        None if s.get("map") is None else str(s["map"]),
                    )
                    for s in doc["shards"]
                ),
                bm25=dict(doc["bm25"]),
                files={
                    p: fmt.FileEntry(int(f["size"]), str(f["sha256"]))
                    for p, f in doc["files"].items()
                },
                meta=dict(doc.get("meta", {})),
            )
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise IndexCorrupt(f"{where} has a missing or malformed field ({exc!r}); {fmt.REPLACE}")


_FORMAT_MARKS = (f'"format":"{SHARDS_FORMAT}"', f'"format": "{SHARDS_FORMAT}"')


def _marked(path: str | os.PathLike[str]) -> str | None:
    """The text of ``path/manifest.json`` if it holds the sharded format's mark (None when
    it does not, or cannot be read): in a JSON string a quote is escaped, so the mark is the
    structure or absent."""
    try:
        text = (Path(path) / fmt.MANIFEST).read_text(encoding="utf-8")
    except (OSError, ValueError):
        return None
    return text if any(mark in text for mark in _FORMAT_MARKS) else None


def may_be_sharded(path: str | os.PathLike[str]) -> bool:
    """False when ``path`` is surely not a sharded index (no parse); True when it may be."""
    return _marked(path) is not None


def is_sharded(path: str | os.PathLike[str]) -> bool:
    """Whether ``path/manifest.json`` is a sharded index's (False when unreadable). A manifest
    without the format's mark is not parsed: a plain one lists every file (3 MB at 1 GB of
    sources, 30 ms to parse), and every open and update asks this first."""
    text = _marked(path)
    return text is not None and _sharded_text(text)


def _sharded_text(text: str) -> bool:
    """Whether the manifest ``text`` is a sharded index's: the mark, then the parse."""
    if not any(mark in text for mark in _FORMAT_MARKS):
        return False
    try:
        doc = json.loads(text)
    except ValueError:
        return False
    return isinstance(doc, dict) and doc.get("format") == SHARDS_FORMAT


def write_top_manifest(
    tmp: Path, shard_dirs: Sequence[str], bm25_config: Mapping[str, Any], meta: Mapping[str, Any]
) -> ShardsManifest:
    """Write the statistics and the top-level manifest over the finished shards in ``tmp``
    (a directory not yet in place), fsyncing both; returns the manifest."""
    shards = [open_index(tmp / name) for name in shard_dirs]
    if not shards:
        raise IndexCorrupt(f"{tmp} has no shards to list")
    stats = CorpusStats.of([_local_bm25(s, bm25_config) for s in shards])
    (tmp / STATS_DIR).mkdir()
    files = {
        f"{STATS_DIR}/{name}.npy": write_npy(tmp / STATS_DIR / f"{name}.npy", arr)
        for name, arr in stats.to_arrays().items()
    }
    entries, offset = [], 0
    for name, shard in zip(shard_dirs, shards, strict=True):
        entries.append(ShardEntry(name, offset, len(shard), file_sha256(tmp / name / fmt.MANIFEST)))
        offset += len(shard)
    first = shards[0].manifest
    manifest = ShardsManifest(
        embedder=dict(first.embedder),
        dim=first.dim,
        count=offset,
        created=datetime.now(UTC).isoformat(timespec="seconds"),
        shards=tuple(entries),
        bm25={"config": dict(bm25_config), "n_docs": stats.n_docs,
              "total_length": stats.total_length, "n_terms": int(stats.vocab.size)},
        files=files,
        meta=dict(meta),
    )  # fmt: skip
    fsync_path(tmp / STATS_DIR)
    write_manifest(tmp, manifest)  # fsyncs tmp too
    return manifest


def _local_bm25(index: Index, config: Mapping[str, Any]) -> Any:
    from docqa.keyword import ARRAYS, BM25Index

    return BM25Index.from_arrays({n: index.array(n) for n in ARRAYS}, config)


def open_sharded(path: str | os.PathLike[str]) -> ShardedIndex:
    """Open the sharded index at ``path``: every shard (sizes checked), the statistics and,
    for a delta-updated index, the row maps (checked to number the live rows once each).
    Every file is reached through one descriptor of the directory, as ``read_snapshot``
    reaches an index's: a rebuild swapping the directory meanwhile gives the old build or the
    new one, never parts of both."""
    root = Path(path)
    return snapshot.opened(root, lambda dfd: _open_sharded(root, dfd))


def open_any(path: str | os.PathLike[str]) -> Index | ShardedIndex:
    """The index at ``path``, plain or sharded, as its manifest says, read once: asking
    ``is_sharded`` and then opening could meet two builds if a rebuild came in between."""
    root = Path(path)

    def read(dfd: int) -> Index | ShardedIndex:
        text = snapshot.read_manifest_text(root, dfd)
        if _sharded_text(text):
            return _open_sharded(root, dfd, text)
        return Index(snapshot.read_build(root, dfd, text))

    return snapshot.opened(root, read)


def _open_sharded(root: Path, dfd: int, text: str | None = None) -> ShardedIndex:
    where = root / fmt.MANIFEST
    if text is None:
        text = snapshot.read_manifest_text(root, dfd)
    manifest = ShardsManifest.from_json(text, str(where))
    mapped = any(e.map is not None for e in manifest.shards)
    offset = 0
    shards = []
    for entry in manifest.shards:
        snap, manifest_sha256 = snapshot.read_snapshot_in(root / entry.path, dfd, entry.path)
        index = Index(snap)
        if entry.count != len(index) or (not mapped and entry.offset != offset):
            raise IndexCorrupt(
                f"{root / entry.path} holds {len(index)} rows at offset {offset} but "
                f"{where} records {entry.count} at {entry.offset}; {fmt.REBUILD}"
            )
        if manifest_sha256 != entry.manifest_sha256:
            raise IndexCorrupt(
                f"{root / entry.path / fmt.MANIFEST} is not the shard {where} lists; {fmt.REBUILD}"
            )
        offset += entry.count
        shards.append(index)
    raw = {rel: snapshot.map_member(root, dfd, rel, e.size) for rel, e in manifest.files.items()}
    maps = _maps(root, manifest, raw) if mapped else None
    if not mapped and offset != manifest.count:
        raise IndexCorrupt(f"{where} counts {manifest.count} rows, its shards {offset}")
    return ShardedIndex(root, manifest, tuple(shards), maps, raw)


def _maps(
    root: Path, manifest: ShardsManifest, raw: Mapping[str, np.ndarray]
) -> tuple[np.ndarray, ...]:
    """Each shard's row map, checked: int64 of the shard's rows, increasing over its live
    rows, and all together numbering ``0..count-1`` once each."""
    where = root / fmt.MANIFEST
    maps = []
    for entry in manifest.shards:
        rel = entry.map
        if rel is None or rel not in manifest.files:
            raise IndexCorrupt(f"{where} lists shard {entry.path} without its row map")
        arr = snapshot.npy_view(raw[rel], root / rel)
        live = arr[arr >= 0]
        if arr.dtype != np.int64 or arr.shape != (entry.count,) or (np.diff(live) <= 0).any():
            raise IndexCorrupt(f"{root / rel} is not the row map of {entry.path}; {fmt.REBUILD}")
        maps.append(arr)
    every = np.concatenate([m[m >= 0] for m in maps]) if maps else np.zeros(0, np.int64)
    if every.size != manifest.count or (every >= manifest.count).any():
        raise IndexCorrupt(f"{where} counts {manifest.count} rows, its maps {every.size}")
    if (np.bincount(every, minlength=manifest.count) != 1).any():
        raise IndexCorrupt(f"the row maps of {root} do not number each row once; {fmt.REBUILD}")
    return tuple(maps)


class ShardedIndex(ManifestRows):
    """An opened sharded index: its ``shards`` (each an ``Index``), their row ``offsets``
    ``(S + 1,) int64`` (for a delta-updated index, ``maps`` instead: each shard's local ->
    global row map, -1 for a deleted row), the BM25 ``stats`` and a global, lazy ``chunks``
    view."""

    def __init__(
        self,
        root: Path,
        manifest: ShardsManifest,
        shards: tuple[Index, ...],
        maps: tuple[np.ndarray, ...] | None,
        raw: Mapping[str, np.ndarray],
    ) -> None:
        self.root = root
        self.manifest = manifest
        self.shards = shards
        self.maps = maps
        self._raw = dict(raw)  # the top manifest's files, mapped at open (uint8)
        self.offsets = np.array([0, *np.cumsum([len(s) for s in shards])], dtype=np.int64)
        self._starts = self.offsets.tolist()
        bm25 = manifest.bm25
        try:
            self.stats = CorpusStats.from_arrays(
                int(bm25["n_docs"]), int(bm25["total_length"]), self._stats_arrays()
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise IndexCorrupt(f"{root / fmt.MANIFEST} has malformed BM25 statistics ({exc!r})")

    @cached_property
    def _where(self) -> tuple[np.ndarray, np.ndarray]:
        """Global row -> (shard, local row), for a delta-updated index (built when a chunk is
        first looked up: an update never needs it)."""
        shard_of = np.zeros(self.manifest.count, dtype=np.int32)
        local_of = np.zeros(self.manifest.count, dtype=np.int64)
        for i, m in enumerate(self.maps or ()):
            local = np.flatnonzero(m >= 0)
            shard_of[m[local]] = i
            local_of[m[local]] = local
        return shard_of, local_of

    def _stats_arrays(self) -> dict[str, np.ndarray]:
        out = {}
        for name in STATS_ARRAYS:
            rel = f"{STATS_DIR}/{name}.npy"
            entry = self.manifest.files.get(rel)
            if entry is None:
                raise IndexCorrupt(
                    f"{self.root / rel} is not listed in the manifest; {fmt.REBUILD}"
                )
            out[name] = snapshot.npy_view(self._raw[rel], self.root / rel)
        return out

    def __repr__(self) -> str:
        return f"ShardedIndex({str(self.root)!r}, count={len(self)}, shards={len(self.shards)})"

    def locate(self, row: int) -> tuple[int, int]:
        """``(shard, local row)`` of global ``row`` (0..count-1)."""
        if not 0 <= row < len(self):
            raise IndexError(f"row {row} is outside 0..{len(self) - 1} of {self.root}")
        if self.maps is not None:
            shard_of, local_of = self._where
            return int(shard_of[row]), int(local_of[row])
        s = bisect.bisect_right(self._starts, row) - 1  # the last shard starting at or before
        return s, row - self._starts[s]

    def chunk(self, row: int) -> Chunk:
        """The chunk of global ``row`` (negative counts from the end, as for one index)."""
        s, local = self.locate(row + len(self) if -len(self) <= row < 0 else row)
        return self.shards[s].chunk(local)

    def verify(self) -> None:
        """Checksum the statistics and every shard; ``IndexCorrupt`` names the first bad file.
        Reads the bytes mapped at open (the ones searches use), never a path again."""
        for rel, entry in self.manifest.files.items():
            if hashlib.sha256(self._raw[rel].data).hexdigest() != entry.digest:
                raise IndexCorrupt(f"{self.root / rel} fails its checksum; {fmt.REBUILD}")
        for shard in self.shards:
            shard.verify()
