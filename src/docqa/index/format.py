"""The on-disk index format: file names, version constants and the manifest schema.

An index is a directory::

    manifest.json          this schema (written last, inside the temporary directory)
    vectors.npy            float32 (count, dim), C order; memory-mapped by the reader
    chunks.offsets.npy     int64 (count + 1,): chunk i is blob[offsets[i]:offsets[i + 1]]
    chunks.blob            UTF-8 JSON objects, one per chunk, concatenated
    arrays/<name>.npy      extra arrays stored by other parts (BM25 CSR, TF-IDF state)

Row ids are positions ``0..count-1``; a later shard is an offset plus these local ids.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from docqa.errors import (
    IndexCorrupt,
    IndexNotFound,
    IndexStoreError,
    IndexVersionError,
    InputError,
)

FORMAT_NAME = "docqa-index"
FORMAT_VERSION = 2  # 2: xxh3-128 file checksums (``docqa.index.checksum``); 1: sha256
SUPPORTED_VERSIONS = frozenset({1, 2})
MANIFEST = "manifest.json"
VECTORS = "vectors.npy"
OFFSETS = "chunks.offsets.npy"
BLOB = "chunks.blob"
ARRAYS_DIR = "arrays"
# Extra arrays whose names start with this hold a fitted TF-IDF embedder's state.
TFIDF_PREFIX = "tfidf_"
_ARRAY_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}$")
REBUILD = "rebuild it with `docqa index FOLDER --index DIR`"
"""What to do about a damaged index (FOLDER: its documents; DIR: the index folder)."""
REPLACE = "remove the index folder and rebuild it with `docqa index FOLDER --index DIR`"
"""What to do about an index whose manifest does not read: ``docqa index`` replaces only what
it can prove is an index (``docqa.index.ownership``), so the folder must go first."""


def no_index(root: Path) -> IndexNotFound:
    """The error for ``root`` holding no index, with a command that builds one: at ``root``
    when it is free (absent or an empty folder), else at the default ``.docqa/index`` (a file,
    or a folder of other things, is never replaced by ``docqa index``)."""
    if not root.exists() or (root.is_dir() and not any(root.iterdir())):
        return IndexNotFound(
            f"no index at {root}; build one with `docqa index FOLDER --index {root}`"
        )
    what = "a folder without manifest.json" if root.is_dir() else "a file, not an index folder"
    return IndexNotFound(
        f"no index at {root} ({what}); give --index the folder an index was built in, or build "
        "one with `docqa index FOLDER` and leave out --index (every command looks in .docqa/index)"
    )


_DIGEST = {"sha256": re.compile(r"^[0-9a-f]{64}$"), "xxh3_128": re.compile(r"^[0-9a-f]{32}$")}


def allowed_file(rel: str) -> bool:
    """Whether ``rel`` is a file an index may list: one of the fixed names or an extra array.

    Anything else (absolute paths, ``..``, other folders, other names) is refused by the
    manifest parser, so no manifest can make the reader or ``verify`` touch a file outside the
    index directory.
    """
    if rel in (VECTORS, OFFSETS, BLOB):
        return True
    folder, slash, name = rel.partition("/")
    return (
        folder == ARRAYS_DIR
        and slash == "/"
        and name.endswith(".npy")
        and bool(_ARRAY_NAME.match(name[:-4]))
        and not name[:-4].endswith(".npy")
    )


def array_file(name: str) -> str:
    """Relative path of the extra array ``name`` (letters, digits, ``_ . -``)."""
    if not _ARRAY_NAME.match(name) or name.endswith(".npy"):
        raise InputError(
            f"array name {name!r} is not allowed; use letters, digits, '_', '.', '-' "
            "(at most 100 characters, no '.npy' suffix)"
        )
    return f"{ARRAYS_DIR}/{name}.npy"


@dataclass(frozen=True)
class FileEntry:
    """One file of the index: its size in bytes and hex checksum ``digest`` by ``algo``
    (``"sha256"``, format 1, or ``"xxh3_128"`` over the file split at ``head``, format 2)."""

    size: int
    digest: str
    algo: str = "sha256"
    head: int = 0

    def to_dict(self) -> dict[str, Any]:
        """The entry as the manifest writes it (``size`` and the digest under its algorithm)."""
        if self.algo == "sha256":
            return {"size": self.size, "sha256": self.digest}
        return {"size": self.size, self.algo: self.digest, "head": self.head}

    @classmethod
    def from_dict(cls, doc: Mapping[str, Any], version: int) -> FileEntry:
        """An entry as the manifest of ``version`` records it (KeyError when malformed)."""
        if version == 1 or "sha256" in doc:
            return cls(int(doc["size"]), str(doc["sha256"]))
        return cls(int(doc["size"]), str(doc["xxh3_128"]), "xxh3_128", int(doc["head"]))


def parse_manifest(text: str, where: str, format_name: str, what: str) -> dict[str, Any]:
    """The JSON object of manifest text read from ``where``, whose ``format`` must be
    ``format_name`` (``what`` it is called otherwise); ``IndexCorrupt`` when it is not, and
    ``IndexStoreError`` when it is another kind of docqa index's."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise IndexCorrupt(f"{where} does not parse as JSON ({exc}); {REPLACE}") from exc
    found = doc.get("format") if isinstance(doc, dict) else None
    if isinstance(found, str) and found.startswith("docqa-") and found != format_name:
        # another kind of docqa index (an index `docqa index` updated is a delta over its
        # base, "docqa-shards"): nothing is wrong with it, and removing it would lose it
        raise IndexStoreError(
            f"{where} is a {found} manifest, not {what}; open the folder with "
            "docqa.Collection.open, which reads every kind of docqa index"
        )
    if not isinstance(doc, dict) or found != format_name:
        raise IndexCorrupt(f"{where} is not {what}; {REPLACE}")
    return doc


@dataclass(frozen=True)
class Recorded:
    """What every manifest records of its rows (an index folder's, a sharded index's): the
    embedder's config, the vectors' width, the row count and when it was built."""

    embedder: Mapping[str, Any]
    dim: int
    count: int
    created: str

    @property
    def embedder_name(self) -> str:
        """The recorded embedder's name."""
        return str(self.embedder.get("name", ""))

    def recorded(self) -> dict[str, Any]:
        """These fields as the manifest's JSON holds them."""
        return {
            "embedder": dict(self.embedder),
            "dim": self.dim,
            "count": self.count,
            "created": self.created,
        }

    @staticmethod
    def read(doc: Mapping[str, Any]) -> dict[str, Any]:
        """These fields of a parsed manifest, typed (KeyError, ValueError when malformed)."""
        return {
            "embedder": dict(doc["embedder"]),
            "dim": int(doc["dim"]),
            "count": int(doc["count"]),
            "created": str(doc["created"]),
        }


@dataclass(frozen=True)
class Manifest(Recorded):
    """Contents of ``manifest.json``; ``files`` maps relative paths to their entries."""

    files: Mapping[str, FileEntry]
    arrays: tuple[str, ...] = ()
    meta: Mapping[str, Any] = field(default_factory=dict)
    dtype: str = "float32"
    format: str = FORMAT_NAME
    version: int = FORMAT_VERSION

    def to_json(self) -> str:
        """The manifest as pretty, key-sorted JSON text (``pretty_json``)."""
        doc = {
            **self.recorded(),
            "format": self.format,
            "version": self.version,
            "dtype": self.dtype,
            "files": {p: f.to_dict() for p, f in self.files.items()},
            "arrays": list(self.arrays),
            "meta": dict(self.meta),
        }
        return pretty_json(doc) + "\n"

    @classmethod
    def from_json(cls, text: str, where: str) -> Manifest:
        """Parse manifest text read from ``where``; raise IndexCorrupt / IndexVersionError."""
        doc = parse_manifest(text, where, FORMAT_NAME, "a docqa index manifest")
        if doc.get("version") not in SUPPORTED_VERSIONS:
            raise IndexVersionError(
                f"{where} has format version {doc.get('version')!r}, this docqa reads "
                f"{sorted(SUPPORTED_VERSIONS)}; upgrade docqa, or {REPLACE}"
            )
        try:
            manifest = cls(
                **cls.read(doc),
                files={p: FileEntry.from_dict(f, doc["version"]) for p, f in doc["files"].items()},
                arrays=tuple(doc.get("arrays", ())),
                meta=dict(doc.get("meta", {})),
                dtype=str(doc["dtype"]),
                version=int(doc["version"]),
            )
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise IndexCorrupt(
                f"{where} is missing or has a malformed field ({exc!r}); {REPLACE}"
            ) from exc
        _check_listing(manifest, where)
        return manifest


def _check_listing(manifest: Manifest, where: str) -> None:
    """Refuse file paths outside the layout, negative sizes and counts, unlisted arrays."""
    for rel, entry in manifest.files.items():
        if not allowed_file(rel):
            raise IndexCorrupt(
                f"{where} lists the file {rel!r}, which is not part of a docqa index "
                f"(only {VECTORS}, {OFFSETS}, {BLOB} and {ARRAYS_DIR}/<name>.npy); {REPLACE}"
            )
        pattern = _DIGEST.get(entry.algo)
        if entry.size < 0 or not 0 <= entry.head <= entry.size or pattern is None:
            raise IndexCorrupt(f"{where} has a malformed entry for {rel!r}; {REPLACE}")
        if not pattern.match(entry.digest):
            raise IndexCorrupt(f"{where} has a malformed entry for {rel!r}; {REPLACE}")
    required = {VECTORS, OFFSETS, BLOB} | {array_file(a) for a in _names(manifest, where)}
    missing = sorted(required - set(manifest.files))
    if missing:
        raise IndexCorrupt(f"{where} does not list {missing[0]}; {REPLACE}")
    if manifest.count < 0 or manifest.dim < 0:
        raise IndexCorrupt(f"{where} records a negative count or dimension; {REPLACE}")


def _names(manifest: Manifest, where: str) -> tuple[str, ...]:
    for name in manifest.arrays:
        if not isinstance(name, str) or not _ARRAY_NAME.match(name) or name.endswith(".npy"):
            raise IndexCorrupt(f"{where} lists a malformed array name {name!r}; {REPLACE}")
    return manifest.arrays


def pretty_json(value: Any, depth: int = 0, flat: int = 3) -> str:
    """``value`` as key-sorted JSON indented by two spaces, with every object or array
    ``flat`` levels deep or deeper on one line (in a manifest: each file's record in
    ``meta.files``). ``json.dumps`` with ``indent`` runs the pure-Python encoder, ~0.1 s for
    the 1,500 files of a 100 MB collection; here each flat part is one call of the C one."""
    if depth >= flat or not isinstance(value, dict | list) or not value:
        return json.dumps(value, sort_keys=True, ensure_ascii=False)
    pad = "\n" + "  " * (depth + 1)
    if isinstance(value, dict):
        parts = [
            json.dumps(str(k), ensure_ascii=False) + ": " + pretty_json(v, depth + 1, flat)
            for k, v in sorted(value.items())
        ]
        return "{" + pad + ("," + pad).join(parts) + "\n" + "  " * depth + "}"
    parts = [pretty_json(v, depth + 1, flat) for v in value]
    return "[" + pad + ("," + pad).join(parts) + "\n" + "  " * depth + "]"
